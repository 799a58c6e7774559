package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.SYNC_NAME_LABEL;

import dev.bosun.common.meta.KubernetesNames;
import dev.bosun.common.meta.LabelSelectors;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/**
 * What the configsync operator refuses in its kinds: the CRDs' CEL rules (which a 1.20 server does
 * not evaluate) and what no schema can state. The reconcilers report it as InvalidSpec and the
 * admission webhook refuses it at apply time, each problem a sentence naming its field.
 */
public final class ConfigSyncValidator {

  private ConfigSyncValidator() {}

  /**
   * What is wrong with a ConfigMapSync's or SecretSync's name and destination selector; empty when
   * nothing is. (The CRDs' rule that destinations name namespaces or a selector needs no check
   * here: their minProperties holds it on 1.20 too.)
   */
  public static List<String> syncProblems(String syncKind, String name, LabelSelector selector) {
    List<String> problems = new ArrayList<>();
    // Every copy carries the sync's name as a label value, which is stricter than a name.
    KubernetesNames.labelValue("the " + syncKind + " name", name)
        .ifPresent(
            p ->
                problems.add(
                    "metadata.name: "
                        + p
                        + " (every copy carries it in the label "
                        + SYNC_NAME_LABEL
                        + "); choose a shorter name"));
    problems.addAll(LabelSelectors.problems(selector, "spec.destinations.namespaceSelector"));
    return problems;
  }

  /** What is wrong with a ConfigMonitor's spec; empty when nothing is. */
  public static List<String> monitorProblems(ConfigMonitorSpec spec) {
    List<String> problems = new ArrayList<>();
    if (orEmpty(spec.getConfigMaps()).isEmpty() && orEmpty(spec.getSecrets()).isEmpty()) {
      problems.add("spec.configMaps, spec.secrets: watch at least one ConfigMap or Secret");
    }
    if (spec.getSelector() == null) {
      problems.add("spec.selector: select the workloads to roll");
    }
    problems.addAll(LabelSelectors.problems(spec.getSelector(), "spec.selector"));
    return problems;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
