package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks that what an operator wrote for people in a namespace reads as text: no Event message and
 * no string anywhere in the status of its objects is a rendered Java record ({@code
 * Promote[instance=db-0, why=Bootstrap]}), an enum constant list or an exception's class name.
 */
public final class PersonText {

  /** How a Java record renders itself: {@code Name[field=}. */
  public static final Pattern RENDERED_RECORD = Pattern.compile("\\w+\\[\\w+=");

  private static final Pattern EXCEPTION = Pattern.compile("\\b\\w+(Exception|Error):");

  private PersonText() {}

  /**
   * Asserts that the Events about objects of {@code group} in {@code namespace}, and every string
   * in the status of the objects of the given kinds ({@code apiVersion} and kind pairs), read as
   * text.
   */
  public static void assertReadable(
      KubernetesClient client, String namespace, String group, List<String[]> kinds) {
    List<String> offending = new ArrayList<>();
    for (Event e : client.v1().events().inNamespace(namespace).list().getItems()) {
      String apiVersion = e.getInvolvedObject().getApiVersion();
      if (apiVersion != null && apiVersion.startsWith(group + "/")) {
        check(
            "Event " + e.getReason() + " on " + e.getInvolvedObject().getName(),
            e.getMessage(),
            offending);
      }
    }
    for (String[] kind : kinds) {
      for (GenericKubernetesResource r :
          client
              .genericKubernetesResources(kind[0], kind[1])
              .inNamespace(namespace)
              .list()
              .getItems()) {
        walk(
            kind[1] + " " + r.getMetadata().getName() + " status",
            r.getAdditionalProperties().get("status"),
            offending);
      }
    }
    assertThat(offending).as("text written for people that is not a sentence").isEmpty();
  }

  private static void walk(String where, Object value, List<String> offending) {
    if (value instanceof String s) {
      check(where, s, offending);
    } else if (value instanceof Map<?, ?> m) {
      m.forEach((k, v) -> walk(where + "." + k, v, offending));
    } else if (value instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        walk(where + "[" + i + "]", l.get(i), offending);
      }
    }
  }

  private static void check(String where, String text, List<String> offending) {
    if (text != null && (RENDERED_RECORD.matcher(text).find() || EXCEPTION.matcher(text).find())) {
      offending.add(where + ": " + text);
    }
  }
}
