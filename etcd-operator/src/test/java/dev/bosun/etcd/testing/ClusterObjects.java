package dev.bosun.etcd.testing;

import dev.bosun.etcd.EtcdOperator;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;

/** What the tests read back about a namespace's etcd members: Pods, retained volumes, Events. */
public final class ClusterObjects {

  /**
   * Event reasons of destructive actions nobody asked for: replacing members or their data, rolling
   * the cluster back to a snapshot. (Removals a scale-down asked for are not counted.)
   */
  public static final Set<String> DESTRUCTIVE =
      Set.of(
          "DisasterRecovery",
          "OldMembersStopped",
          "RemovingUnexpectedMember",
          "ReplacingLostMember",
          "LearnerNeverStarted");

  private ClusterObjects() {}

  /** How many destructive actions ({@link #DESTRUCTIVE}) the operator recorded for a cluster. */
  public static long destructive(KubernetesClient client, String ns, String cluster) {
    return events(client, ns, cluster).stream()
        .filter(e -> DESTRUCTIVE.contains(e.getReason()))
        .count();
  }

  /** Every member Pod as {@code name/uid}, sorted: equal lists mean no Pod was replaced. */
  public static List<String> podUids(KubernetesClient client, String ns) {
    return client
        .pods()
        .inNamespace(ns)
        .withLabel(EtcdOperator.MEMBER_LABEL)
        .list()
        .getItems()
        .stream()
        .map(p -> p.getMetadata().getName() + "/" + p.getMetadata().getUid())
        .sorted()
        .toList();
  }

  /** The names of the volumes kept (labelled retained) after their members left. */
  public static List<String> retainedVolumes(KubernetesClient client, String ns) {
    return client
        .persistentVolumeClaims()
        .inNamespace(ns)
        .withLabel(EtcdOperator.RETAINED_LABEL, "true")
        .list()
        .getItems()
        .stream()
        .map(v -> v.getMetadata().getName())
        .toList();
  }

  /** The Events about one EtcdCluster. */
  public static List<Event> events(KubernetesClient client, String ns, String cluster) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> cluster.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** The reasons of the Events about one EtcdCluster. */
  public static List<String> eventReasons(KubernetesClient client, String ns, String cluster) {
    return events(client, ns, cluster).stream().map(Event::getReason).toList();
  }
}
