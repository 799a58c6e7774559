package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The explicit opt-in ({@code spec.disasterRecovery.restoreFromBackup}) for a cluster that stays
 * without quorum: its members are stopped, their volumes are kept (labelled retained, never
 * deleted: they are the only copy of what was written after the snapshot), and a new cluster is
 * started from the newest snapshot. It starts only on evidence (the planner's {@link
 * Step.QuorumLost}, never a cluster the operator merely cannot see), only after {@code
 * afterSeconds} of it, and only from a snapshot younger than {@code maxSnapshotAgeMinutes}. Off by
 * default: the operator then only reports QuorumLost. Every state is the DisasterRecovery
 * condition.
 */
final class DisasterRecovery {

  static final String CONDITION = "DisasterRecovery";
  static final int DEFAULT_AFTER_SECONDS = 300;
  static final int DEFAULT_MAX_SNAPSHOT_AGE_MINUTES = 1440;

  private static final Logger LOG = LoggerFactory.getLogger(DisasterRecovery.class);

  private DisasterRecovery() {}

  /** What disaster recovery does about one observation. */
  sealed interface Decision {
    /** The DisasterRecovery condition that says so. */
    DesiredCondition condition();
  }

  /** Not configured, or nothing to recover from: nothing happens. */
  record Idle(DesiredCondition condition) implements Decision {}

  /** Quorum is lost on evidence, but not for long enough yet. */
  record Waiting(DesiredCondition condition) implements Decision {}

  /** Due, but no snapshot may be used: refused, and why. */
  record Refused(DesiredCondition condition) implements Decision {}

  /** The old members are stopped: the new first member is being restored. */
  record Restoring(DesiredCondition condition) implements Decision {}

  /** Due, and the snapshot is recent enough: replace the members. */
  record Start(RestoreSource source, DesiredCondition condition) implements Decision {}

  /** Looks up the newest snapshot (an I/O call); kept apart so the decision stays pure. */
  @FunctionalInterface
  interface Snapshots {
    RestoreSource newest() throws RestoreSources.NotRestorable;
  }

  /**
   * The decision for this round of {@code cluster}, whose planner chose {@code step}: a recovery
   * already under way restores its first member; otherwise {@link #decide}.
   */
  static Decision forRound(EtcdCluster cluster, Step step, Instant now, Snapshots snapshots) {
    EtcdClusterStatus previous = cluster.getStatus();
    Decision decision =
        decide(
            cluster, step, previous == null ? null : previous.getQuorumLostSince(), now, snapshots);
    if (previous == null || previous.getRecoveringFrom() == null) {
      return decision;
    }
    // The old cluster is gone and forgotten: this round belongs to the restored first member.
    return new Restoring(
        DesiredCondition.isTrue(
            CONDITION,
            "RestoringFirstMember",
            "disaster recovery from "
                + previous.getRecoveringFrom()
                + ": "
                + new RecoveryPlanner.RestoreFirstMember().message()));
  }

  /**
   * The decision for a cluster whose planner chose {@code step}, quorum lost on evidence since
   * {@code quorumLostSince} (null when not lost).
   */
  static Decision decide(
      EtcdCluster cluster,
      Step step,
      ZonedDateTime quorumLostSince,
      Instant now,
      Snapshots snapshots) {
    var dr = cluster.getSpec().getDisasterRecovery();
    if (dr == null || dr.getRestoreFromBackup() == null) {
      return new Idle(
          DesiredCondition.isFalse(
              CONDITION,
              "NotConfigured",
              "spec.disasterRecovery.restoreFromBackup is not set: a quorum loss is only"
                  + " reported"));
    }
    Policy policy =
        new Policy(
            dr.getRestoreFromBackup(), afterSeconds(cluster), maxSnapshotAgeMinutes(cluster));
    if (!(step instanceof Step.QuorumLost)) {
      return new Idle(noLoss(step, policy));
    }
    // The first observation of the loss is its start (the status records the same second).
    Instant since =
        quorumLostSince != null ? quorumLostSince.toInstant() : now.truncatedTo(ChronoUnit.SECONDS);
    return waiting(policy, since, now).orElseGet(() -> fromSnapshot(policy, since, now, snapshots));
  }

  /** What a configured recovery needs: its backup and its two bounds. */
  record Policy(String backup, int afterSeconds, int maxSnapshotAgeMinutes) {}

  /** The condition while the planner's step shows no quorum loss on evidence. */
  static DesiredCondition noLoss(Step step, Policy policy) {
    if (step instanceof Step.MembersUnseen) {
      return DesiredCondition.isFalse(
          CONDITION,
          "QuorumNotConfirmedLost",
          "the operator cannot see enough members to confirm a quorum loss; recovery never"
              + " starts on members it merely cannot reach");
    }
    if (step instanceof Step.NoLeader) {
      return DesiredCondition.isFalse(
          CONDITION,
          "DataIntact",
          "the members have no leader but a majority runs on its own data: restoring a"
              + " snapshot would roll back a keyspace that is not lost, so recovery never"
              + " starts on this");
    }
    return DesiredCondition.isFalse(
        CONDITION,
        "Standby",
        "a quorum loss confirmed for "
            + policy.afterSeconds()
            + " s is recovered from the newest snapshot of EtcdBackup "
            + policy.backup()
            + " if it is younger than "
            + policy.maxSnapshotAgeMinutes()
            + " minutes");
  }

  /** Waiting, while the loss that began {@code since} is younger than afterSeconds. */
  static Optional<Decision> waiting(Policy policy, Instant since, Instant now) {
    Instant dueAt = since.plus(Duration.ofSeconds(policy.afterSeconds()));
    if (!dueAt.isAfter(now)) {
      return Optional.empty();
    }
    return Optional.of(
        new Waiting(
            DesiredCondition.isFalse(
                CONDITION,
                "WaitingForAfterSeconds",
                "quorum lost since "
                    + since
                    + "; recovery from EtcdBackup "
                    + policy.backup()
                    + " starts at "
                    + dueAt
                    + " unless quorum returns")));
  }

  /** A due recovery: started from the newest snapshot, or refused when none may be used. */
  private static Decision fromSnapshot(
      Policy policy, Instant since, Instant now, Snapshots snapshots) {
    RestoreSource source;
    try {
      source = snapshots.newest();
    } catch (RestoreSources.NotRestorable e) {
      return new Refused(
          DesiredCondition.isFalse(
              CONDITION, "NoUsableSnapshot", "recovery refused: " + e.getMessage()));
    }
    return withSnapshot(policy, since, source, now);
  }

  /** Started from {@code source}, or refused when it is older than maxSnapshotAgeMinutes. */
  static Decision withSnapshot(Policy policy, Instant since, RestoreSource source, Instant now) {
    Duration age = Duration.between(source.takenAt(), now);
    int maxAge = policy.maxSnapshotAgeMinutes();
    if (age.compareTo(Duration.ofMinutes(maxAge)) > 0) {
      return new Refused(
          DesiredCondition.isFalse(
              CONDITION,
              "SnapshotTooOld",
              "recovery refused: the newest snapshot "
                  + source.location()
                  + " was taken at "
                  + source.takenAt()
                  + ", "
                  + age.toMinutes()
                  + " minutes ago, beyond maxSnapshotAgeMinutes="
                  + maxAge
                  + "; restoring it would roll every client back further than allowed. Take a"
                  + " newer snapshot, raise the bound, or recover by hand"));
    }
    return new Start(
        source,
        DesiredCondition.isTrue(
            CONDITION,
            "Recovering",
            "quorum lost since "
                + since
                + ": replacing every member with a new cluster restored from "
                + source.location()
                + " (taken "
                + age.toMinutes()
                + " minutes ago)"));
  }

  static int afterSeconds(EtcdCluster cluster) {
    var dr = cluster.getSpec().getDisasterRecovery();
    return dr == null || dr.getAfterSeconds() == null
        ? DEFAULT_AFTER_SECONDS
        : dr.getAfterSeconds();
  }

  static int maxSnapshotAgeMinutes(EtcdCluster cluster) {
    var dr = cluster.getSpec().getDisasterRecovery();
    return dr == null || dr.getMaxSnapshotAgeMinutes() == null
        ? DEFAULT_MAX_SNAPSHOT_AGE_MINUTES
        : dr.getMaxSnapshotAgeMinutes();
  }

  /**
   * Keeps the old members' volumes: labelled retained and without owner, so neither a scale-down
   * nor the EtcdCluster's garbage collection can delete them. Safe to repeat.
   */
  static void retainVolumes(
      KubernetesClient client,
      EtcdCluster cluster,
      MemberInventory inventory,
      List<String> members,
      EventRecorder events) {
    String ns = cluster.getMetadata().getNamespace();
    for (String member : members) {
      var volume = inventory.volumes().get(member);
      client
          .persistentVolumeClaims()
          .inNamespace(ns)
          .withName(volume.getMetadata().getName())
          .edit(
              v -> {
                v.getMetadata().getLabels().put(EtcdOperator.RETAINED_LABEL, "true");
                v.getMetadata().setOwnerReferences(List.of());
                return v;
              });
    }
    String message =
        "kept the volumes of "
            + String.join(", ", members)
            + " with label "
            + EtcdOperator.RETAINED_LABEL
            + "=true: writes made after the snapshot are only there";
    LOG.warn(message);
    events.normal(cluster, "VolumesRetained", message);
  }

  /** Deletes the old members' Pods, whose volumes are already kept. Safe to repeat. */
  static void stopPods(
      KubernetesClient client, EtcdCluster cluster, List<String> members, EventRecorder events) {
    String ns = cluster.getMetadata().getNamespace();
    for (String pod : members) {
      client.pods().inNamespace(ns).withName(pod).delete();
    }
    String message = "deleted the Pods of the old members " + String.join(", ", members);
    LOG.warn(message);
    events.normal(cluster, "OldMembersStopped", message);
  }
}
