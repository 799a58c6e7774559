package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.dependent.MemberPods;
import dev.bosun.etcd.etcd.EtcdConnections;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.DisasterRecovery;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reconciler called directly (no operator running) with the copy of a cluster that JOSDK's
 * informer can still hold right after the reconciler's own status write: a disaster recovery that
 * stopped every member and recorded recoveringFrom must not be forgotten by the next reconcile.
 */
@ExtendWith(ControlPlaneExtension.class)
class StaleClusterCopyIT {

  private static final String SNAPSHOT = "s3://etcd-backups/ns/dr/dr-backup/20261122T182301Z.db";

  KubernetesClient client;
  String ns;
  EtcdClusterReconciler reconciler;
  Context<EtcdCluster> context;

  @BeforeEach
  void setUp() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, EtcdUnderTest.CRDS);
    ns =
        Crds.namespace(
            client,
            "etcdstale-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    reconciler =
        new EtcdClusterReconciler(
            EtcdUnderTest.ADDRESSING,
            new EventRecorder(client, EtcdOperator.NAME),
            Clock.systemUTC(),
            (c, cluster, minAvailable) -> {},
            EtcdOperator.DEFAULT_OPERATOR_IMAGE,
            new dev.bosun.etcd.restore.RestoreSources(
                java.util.Optional.empty(), java.util.Optional.empty()),
            new EtcdConnections());
    context = clientOnly(client);
  }

  @AfterEach
  void tearDown() {
    client.namespaces().withName(ns).delete();
    client.close();
  }

  @Test
  void aReconcileOnTheCopyFromBeforeTheDisasterRecoveryStartedKeepsRecovering() {
    EtcdCluster stale = clusterWhoseMembersWereStopped();

    UpdateControl<EtcdCluster> result = reconciler.reconcile(stale, context);

    EtcdClusterStatus written = result.getResource().orElseThrow().getStatus();
    assertThat(written.getRecoveringFrom()).isEqualTo(SNAPSHOT);
    Condition ready = Conditions.find(written.getConditions(), "Ready").orElseThrow();
    // No EtcdBackup exists: the recovery says that it waits, and for what.
    assertThat(ready.getReason()).isEqualTo("WaitingForBackup");
    assertThat(ready.getMessage())
        .startsWith("disaster recovery from " + SNAPSHOT)
        .contains("EtcdBackup dr-backup does not exist");
    // Nothing was started on the strength of the old copy.
    assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
  }

  @Test
  void aRecoveryWaitingForAnOldMemberPodSaysWhichOne() {
    EtcdCluster stale = clusterWhoseMembersWereStopped();
    EtcdCluster live = EtcdClusters.get(client, ns, "dr");
    Map<String, String> labels = new HashMap<>(MemberPods.selector(live));
    labels.put(EtcdOperator.MEMBER_LABEL, "dr-1");
    var pod =
        client
            .pods()
            .inNamespace(ns)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("dr-1")
                    .withLabels(labels)
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("etcd")
                    .withImage("etcd")
                    .endContainer()
                    .endSpec()
                    .build());
    // The namespace's default ServiceAccount may not exist yet, which admission insists on.
    Awaitility.await("old member Pod dr-1")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> pod.create() != null);

    UpdateControl<EtcdCluster> result = reconciler.reconcile(stale, context);

    EtcdClusterStatus written = result.getResource().orElseThrow().getStatus();
    assertThat(written.getRecoveringFrom()).isEqualTo(SNAPSHOT);
    Condition ready = Conditions.find(written.getConditions(), "Ready").orElseThrow();
    assertThat(ready.getReason()).isEqualTo(EtcdClusterReconciler.RECOVERY_WAITING);
    assertThat(ready.getMessage()).contains("old member Pods").contains("dr-1 (not deleted)");
    assertThat(result.getScheduleDelay()).isPresent();
  }

  /**
   * Creates a cluster whose stored status says a disaster recovery from {@link #SNAPSHOT} has
   * stopped its members, and returns the copy from before that status write.
   */
  private EtcdCluster clusterWhoseMembersWereStopped() {
    EtcdCluster cluster = EtcdClusters.create(client, ns, "dr", 3, "3.4.23");
    DisasterRecovery dr = new DisasterRecovery();
    dr.setRestoreFromBackup("dr-backup");
    dr.setAfterSeconds(30);
    cluster.getSpec().setDisasterRecovery(dr);
    cluster = client.resource(cluster).update();
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setObservedGeneration(cluster.getMetadata().getGeneration());
    status.setClusterId("cdf818194e3a8c32");
    status.setQuorumLostSince(ZonedDateTime.now().minusMinutes(1).withNano(0));
    cluster.setStatus(status);
    cluster = client.resource(cluster).updateStatus();
    EtcdCluster stale = Serialization.clone(cluster);

    EtcdClusterStatus recovering = Serialization.clone(status);
    recovering.setRecoveringFrom(SNAPSHOT);
    cluster.setStatus(recovering);
    client.resource(cluster).updateStatus();
    return stale;
  }

  /** A Context that only offers the client, which is all the cluster reconciler uses. */
  @SuppressWarnings("unchecked")
  private static Context<EtcdCluster> clientOnly(KubernetesClient client) {
    return (Context<EtcdCluster>)
        Proxy.newProxyInstance(
            StaleClusterCopyIT.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getClient")) {
                return client;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
