package dev.bosun.platform;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the real-node scenarios do with Pods: namespaces, a shell Pod to act from, readiness. */
public final class RealNodePods {

  private RealNodePods() {}

  /** Creates a namespace (with annotations) and waits for its default ServiceAccount. */
  public static void namespace(
      KubernetesClient admin, String name, Map<String, String> annotations) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .build())
        .create();
    await("the default ServiceAccount of " + name)
        .atMost(Duration.ofSeconds(30))
        .until(() -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
  }

  /** A Pod that sleeps, from the node's workloads image (busybox, etcdctl, mariadb client). */
  public static Pod shell(String name, String image, Map<String, String> env) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(1L)
        .addNewContainer()
        .withName(name)
        .withImage(image)
        .withImagePullPolicy("Never")
        .withCommand("sleep", "3600")
        .withEnv(
            env.entrySet().stream().map(e -> new EnvVar(e.getKey(), e.getValue(), null)).toList())
        .endContainer()
        .endSpec()
        .build();
  }

  /** Creates {@code pod} in {@code namespace} and waits until it is Ready. */
  public static void run(KubernetesClient admin, String namespace, Pod pod) {
    admin.pods().inNamespace(namespace).resource(pod).create();
    String name = pod.getMetadata().getName();
    await(namespace + "/" + name + " Ready")
        .atMost(Duration.ofMinutes(2))
        .until(() -> ready(admin.pods().inNamespace(namespace).withName(name).get()));
  }

  /** True when the Pod's Ready condition is True. */
  public static boolean ready(Pod p) {
    return p != null
        && p.getStatus() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * The numbers of the output lines "{@code word} N" (a shell writer's "ack 17", "fail 18"), which
   * may carry more fields after N ("ack 17 1764237600123 1764237600150").
   */
  public static Set<Integer> numbered(String out, String word) {
    Set<Integer> set = new HashSet<>();
    Matcher m = Pattern.compile("(?m)^" + word + " (\\d+)(?: [^\\n]*)?$").matcher(out);
    while (m.find()) {
      set.add(Integer.parseInt(m.group(1)));
    }
    return set;
  }
}
