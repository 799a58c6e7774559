package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** Every backup kind says the same thing in the same situation. */
class BackupConditionsTest {

  static final ZonedDateTime NEXT = ZonedDateTime.parse("2026-11-24T02:00:00Z");
  static final BackupRecord LAST =
      new BackupRecord(
          "ns/c/b/20261123T020000Z.db",
          ZonedDateTime.parse("2026-11-23T02:00:00Z"),
          42L,
          "file:/backups/ns/c/b/20261123T020000Z.db");

  static Tuple condition(String type, String status, String reason, String message) {
    return Tuple.tuple(type, status, reason, message);
  }

  /** Ready after LAST succeeded: what a following run keeps saying. */
  static final Tuple LAST_SUCCEEDED =
      condition(
          "Ready",
          "True",
          "BackupSucceeded",
          "last backup taken at 2026-11-23T02:00:00Z, 42 bytes,"
              + " stored at file:/backups/ns/c/b/20261123T020000Z.db");

  static final Tuple SUCCEEDED_NOT_DEGRADED =
      condition("Degraded", "False", "BackupsWorking", "the last backup succeeded");

  static List<Tuple> tuples(List<DesiredCondition> conditions) {
    return conditions.stream()
        .map(c -> Tuple.tuple(c.type(), c.status(), c.reason(), c.message()))
        .toList();
  }

  /** Conditions as a reconciler stored them. */
  static List<Condition> stored(List<DesiredCondition> desired) {
    return Conditions.merge(null, desired, 1, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
  }

  @Test
  void aScheduledBackupBeforeItsFirstRunIsNotReadyAndNotDegraded() {
    assertThat(tuples(BackupConditions.idle(null, Optional.of(NEXT))))
        .containsExactly(
            condition(
                "Ready", "False", "Scheduled", "the first backup is taken at 2026-11-24T02:00:00Z"),
            condition("Progressing", "False", "Idle", "next backup 2026-11-24T02:00:00Z"),
            condition("Degraded", "False", "BackupsWorking", "no backup attempt failed"));
  }

  @Test
  void afterASuccessItIsReadyAndIdleUntilTheNextTime() {
    assertThat(tuples(BackupConditions.idle(LAST, Optional.of(NEXT))))
        .containsExactly(
            LAST_SUCCEEDED,
            condition("Progressing", "False", "Idle", "next backup 2026-11-24T02:00:00Z"),
            SUCCEEDED_NOT_DEGRADED);
  }

  @Test
  void aOneShotBackupIsDoneAfterItsSuccess() {
    assertThat(BackupConditions.succeeded(LAST, Optional.empty()))
        .filteredOn(c -> c.type().equals("Progressing"))
        .extracting(DesiredCondition::reason, DesiredCondition::message)
        .containsExactly(Tuple.tuple("Idle", "one-shot backup done"));
  }

  @Test
  void theMessageDoesNotDependOnHowTheTimeWasReadBack() {
    // A time read back from the API server may carry a region zone instead of an offset.
    BackupRecord readBack =
        new BackupRecord(
            LAST.key(), LAST.time().withZoneSameInstant(ZoneId.of("UTC")), 42L, LAST.location());
    assertThat(
            BackupConditions.succeeded(
                readBack, Optional.of(NEXT.withZoneSameInstant(ZoneId.of("Europe/Paris")))))
        .isEqualTo(BackupConditions.succeeded(LAST, Optional.of(NEXT)));
  }

  @Test
  void aFirstRunIsNotReadyYetWithTheRunningReason() {
    assertThat(tuples(BackupConditions.running(null, "BackingUp", "dump of db-1 into k since t")))
        .containsExactly(
            condition("Ready", "False", "BackingUp", "dump of db-1 into k since t"),
            condition("Progressing", "True", "BackingUp", "dump of db-1 into k since t"),
            condition("Degraded", "False", "BackupsWorking", "no backup attempt failed"));
  }

  @Test
  void aRunKeepsWhatReadyAndDegradedSaidBefore() {
    List<Condition> afterSuccess = stored(BackupConditions.succeeded(LAST, Optional.of(NEXT)));
    assertThat(tuples(BackupConditions.running(afterSuccess, "BackingUp", "running")))
        .containsExactly(
            LAST_SUCCEEDED,
            condition("Progressing", "True", "BackingUp", "running"),
            SUCCEEDED_NOT_DEGRADED);

    List<Condition> afterFailure =
        stored(BackupConditions.failed("BackupFailed", "upload failed: HTTP 403"));
    assertThat(tuples(BackupConditions.running(afterFailure, "Queued", "waiting for a worker")))
        .containsExactly(
            condition("Ready", "False", "BackupFailed", "upload failed: HTTP 403"),
            condition("Progressing", "True", "Queued", "waiting for a worker"),
            condition("Degraded", "True", "BackupsFailing", "upload failed: HTTP 403"));
  }

  @Test
  void aFailureIsNotReadyNotProgressingAndDegraded() {
    assertThat(tuples(BackupConditions.failed("WaitingForCluster", "EtcdCluster e is missing")))
        .containsExactly(
            condition("Ready", "False", "WaitingForCluster", "EtcdCluster e is missing"),
            condition("Progressing", "False", "WaitingForCluster", "no backup is running"),
            condition("Degraded", "True", "BackupsFailing", "EtcdCluster e is missing"));
  }

  @Test
  void aSuccessAfterAFailureClearsDegraded() {
    List<Condition> failed = stored(BackupConditions.failed("BackupFailed", "dump failed"));
    List<Condition> recovered =
        Conditions.merge(
            failed,
            BackupConditions.succeeded(LAST, Optional.empty()),
            2,
            Clock.fixed(Instant.EPOCH.plusSeconds(60), ZoneOffset.UTC));
    assertThat(Conditions.isTrue(recovered, "Ready")).isTrue();
    assertThat(Conditions.isTrue(recovered, "Degraded")).isFalse();
    assertThat(Conditions.find(recovered, "Degraded").orElseThrow().getLastTransitionTime())
        .isEqualTo("1970-01-01T00:01:00Z");
  }
}
