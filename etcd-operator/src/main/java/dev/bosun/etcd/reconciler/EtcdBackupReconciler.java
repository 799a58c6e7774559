package dev.bosun.etcd.reconciler;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.BackupReasons;
import dev.bosun.common.backup.BackupReconciler;
import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.backup.EtcdBackupStores;
import dev.bosun.etcd.backup.SnapshotTaker;
import dev.bosun.etcd.client.EtcdClients;
import dev.bosun.etcd.client.EtcdConnections;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupStatus;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Takes an EtcdCluster's snapshots ({@link BackupReconciler}'s steps): streamed from a healthy
 * member through the maintenance API into the store, with the revision it was taken at.
 */
@ControllerConfiguration(fieldManager = EtcdOperator.NAME)
public class EtcdBackupReconciler
    extends BackupReconciler<EtcdBackup, EtcdBackupStatus, EtcdCluster, SnapshotTaker.Snapshot> {

  /** Snapshots taken at once. */
  public static final int THREADS = 2;

  /** Snapshots waiting for a thread before new ones are refused (and retried later). */
  public static final int QUEUE = 16;

  private final MemberAddressing addressing;
  private final Optional<Path> volumeRoot;
  private final EtcdConnections connections;

  public EtcdBackupReconciler(
      MemberAddressing addressing,
      EventRecorder events,
      Clock clock,
      Optional<Path> volumeRoot,
      EtcdConnections connections) {
    // A snapshot of a large database takes minutes: never on a reconcile thread.
    super(
        EtcdCluster.class,
        EtcdBackupStatus.class,
        new BackgroundJobs<>("etcd-snapshot", THREADS, QUEUE, HumanMessages::describe),
        events,
        clock);
    this.addressing = addressing;
    this.volumeRoot = volumeRoot;
    this.connections = connections;
  }

  @Override
  public BackupRequest request(EtcdBackup b) {
    return new BackupRequest(
        b.getSpec().getClusterName(), b.getSpec().getSchedule(), b.getSpec().getKeep());
  }

  @Override
  public BackupTarget openStore(EtcdBackup b, KubernetesClient client) throws BackupStoreException {
    return EtcdBackupStores.open(client, volumeRoot, b);
  }

  /** A snapshot from the healthy members (leader first), with clients for them. */
  @Override
  public Start<SnapshotTaker.Snapshot> start(
      EtcdBackup b,
      EtcdCluster cluster,
      BackupTarget target,
      Instant now,
      KubernetesClient client) {
    List<URI> endpoints = endpoints(cluster);
    if (endpoints.isEmpty()) {
      return new Blocked<>(
          BackupReasons.WAITING_FOR_CLUSTER,
          "EtcdCluster " + b.getSpec().getClusterName() + " has no healthy member",
          Duration.ofSeconds(10));
    }
    EtcdClients clients;
    try {
      // TLS from the cluster's Secret when it has one.
      clients = connections.of(client, cluster);
    } catch (IllegalArgumentException e) {
      return new Blocked<>(
          BackupReasons.WAITING_FOR_CLUSTER,
          HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH),
          Duration.ofSeconds(30));
    }
    String key = target.newKey(now, "db");
    return new Job<>(
        "snapshot of " + b.getSpec().getClusterName() + " into " + key,
        key,
        bytes ->
            new SnapshotTaker(new EtcdMembership(clients))
                .take(endpoints, target.store(), key, bytes));
  }

  @Override
  public Recorded recorded(EtcdBackup b, SnapshotTaker.Snapshot snapshot) {
    String message =
        "snapshot of "
            + b.getSpec().getClusterName()
            + " at revision "
            + snapshot.revision()
            + " ("
            + snapshot.stored().size()
            + " bytes) stored at "
            + snapshot.stored().location();
    return new Recorded(snapshot.stored(), message, Map.of("lastRevision", snapshot.revision()));
  }

  /** Healthy members' endpoints, leader first; empty without a healthy member. */
  private List<URI> endpoints(EtcdCluster cluster) {
    if (cluster.getStatus() == null || cluster.getStatus().getMembers() == null) {
      return List.of();
    }
    var tls = cluster.getSpec().getTls();
    ClusterRef ref =
        new ClusterRef(
            cluster.getMetadata().getNamespace(),
            cluster.getMetadata().getName(),
            tls != null && tls.getServerSecretName() != null,
            tls != null && tls.getPeerSecretName() != null);
    return cluster.getStatus().getMembers().stream()
        .filter(m -> Boolean.TRUE.equals(m.getHealthy()) && m.getRole() != Members.Role.LEARNER)
        .sorted(Comparator.comparing((Members m) -> m.getRole() != Members.Role.LEADER))
        .map(m -> addressing.clientUrl(ref, m.getName()))
        .toList();
  }
}
