package dev.bosun.etcd.testing;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.Edits;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.function.Predicate;

/** Creating, reading and waiting on EtcdClusters in tests. */
public final class EtcdClusters {

  private EtcdClusters() {}

  public static EtcdCluster create(
      KubernetesClient client, String namespace, String name, int size, String version) {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setSize(size);
    spec.setVersion(version);
    cluster.setSpec(spec);
    return client.resource(cluster).create();
  }

  /** A one-member cluster whose database may hold {@code quotaBytes} (--quota-backend-bytes). */
  public static EtcdCluster createWithQuota(
      KubernetesClient client, String namespace, String name, String version, long quotaBytes) {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setSize(1);
    spec.setVersion(version);
    var storage = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Storage();
    storage.setQuotaBackendBytes(quotaBytes);
    spec.setStorage(storage);
    cluster.setSpec(spec);
    return client.resource(cluster).create();
  }

  public static EtcdCluster get(KubernetesClient client, String namespace, String name) {
    return client.resources(EtcdCluster.class).inNamespace(namespace).withName(name).get();
  }

  public static void edit(
      KubernetesClient client,
      String namespace,
      String name,
      java.util.function.Consumer<EtcdClusterSpec> change) {
    // The operator writes the status meanwhile.
    Edits.edit(
        client.resources(EtcdCluster.class).inNamespace(namespace).withName(name),
        c -> {
          change.accept(c.getSpec());
          return c;
        });
  }

  /** Waits until the cluster's status satisfies the condition. */
  public static EtcdCluster await(
      KubernetesClient client,
      String namespace,
      String name,
      Duration atMost,
      String what,
      Predicate<EtcdCluster> condition) {
    return org.awaitility.Awaitility.await(name + ": " + what)
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> get(client, namespace, name), c -> c != null && condition.test(c));
  }

  /** Ready=True for the current generation, with {@code size} healthy members. */
  public static Predicate<EtcdCluster> readyWith(int size) {
    return c -> {
      EtcdClusterStatus s = c.getStatus();
      return s != null
          && c.getMetadata().getGeneration().equals(s.getObservedGeneration())
          && Conditions.isTrue(s.getConditions(), "Ready")
          && s.getMembers() != null
          && s.getMembers().size() == size
          && s.getHealthyMembers() == size;
    };
  }

  /** Waits up to a minute for the condition {@code type} to have {@code reason}. */
  public static EtcdCluster awaitReason(
      KubernetesClient client, String namespace, String name, String type, String reason) {
    return await(
        client,
        namespace,
        name,
        Duration.ofSeconds(60),
        type + " " + reason,
        c -> reason.equals(reasonOf(c, type)));
  }

  /** The reason of the stored condition of that type, or null. */
  public static String reasonOf(EtcdCluster c, String type) {
    var condition = conditionOf(c, type);
    return condition == null ? null : condition.getReason();
  }

  /** The stored condition of that type, or null. */
  public static io.fabric8.kubernetes.api.model.Condition conditionOf(EtcdCluster c, String type) {
    return c.getStatus() == null
        ? null
        : Conditions.find(c.getStatus().getConditions(), type).orElse(null);
  }

  public static boolean condition(EtcdCluster c, String type) {
    return c.getStatus() != null && Conditions.isTrue(c.getStatus().getConditions(), type);
  }

  /**
   * Deletes the EtcdCluster and waits until it and its member Pods are gone (the garbage collector
   * takes them; volumes kept by {@code whenDeleted: Retain} stay); returns what was deleted.
   */
  public static EtcdCluster deleteAndAwaitPodsGone(
      KubernetesClient client, String namespace, String name) {
    EtcdCluster old = delete(client, namespace, name);
    awaitMemberPodsGone(client, namespace, Duration.ofSeconds(60));
    return old;
  }

  /** Deletes the EtcdCluster and waits until the object is gone; returns what was deleted. */
  public static EtcdCluster delete(KubernetesClient client, String namespace, String name) {
    EtcdCluster old = get(client, namespace, name);
    if (old == null) {
      throw new IllegalStateException("no EtcdCluster " + name + " to delete");
    }
    client.resource(old).delete();
    org.awaitility.Awaitility.await("EtcdCluster " + name + " gone")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> get(client, namespace, name) == null);
    return old;
  }

  /** Waits until no member Pod is left in the namespace. */
  public static void awaitMemberPodsGone(KubernetesClient client, String namespace, Duration most) {
    org.awaitility.Awaitility.await("the member Pods gone")
        .atMost(most)
        .pollInterval(Duration.ofMillis(250))
        .until(() -> memberPods(client, namespace) == 0);
  }

  /** Creates an EtcdCluster of the same name, namespace and spec as {@code old}. */
  public static EtcdCluster createAgain(KubernetesClient client, EtcdCluster old) {
    EtcdCluster again = new EtcdCluster();
    again.setMetadata(
        new ObjectMetaBuilder()
            .withName(old.getMetadata().getName())
            .withNamespace(old.getMetadata().getNamespace())
            .build());
    again.setSpec(old.getSpec());
    return client.resource(again).create();
  }

  private static int memberPods(KubernetesClient client, String namespace) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel(EtcdOperator.MEMBER_LABEL)
        .list()
        .getItems()
        .size();
  }
}
