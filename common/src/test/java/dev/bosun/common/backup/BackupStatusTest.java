package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A kind's status read into the shared view and written back loses and changes nothing. */
class BackupStatusTest {

  /** Shaped as the generated status types are: the shared fields and one of the kind's own. */
  public static class KindStatus {
    public Long observedGeneration;
    public List<Condition> conditions;
    public BackupRecord lastBackup;
    public List<BackupRecord> backups;
    public Integer backupCount;

    @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd'T'HH:mm:ssXXX")
    public ZonedDateTime nextScheduleTime;

    public BackupProgress inProgress;
    public Long lastRevision;
  }

  static final ZonedDateTime T = ZonedDateTime.parse("2026-11-24T02:00:00Z");

  @Test
  void theKindsOwnFieldsRideAlongAndTheSharedOnesAreTyped() {
    KindStatus stored = new KindStatus();
    stored.observedGeneration = 3L;
    stored.conditions =
        List.of(
            new ConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason("BackupSucceeded")
                .withMessage("m")
                .withLastTransitionTime("2026-11-23T02:00:00Z")
                .build());
    stored.lastBackup = new BackupRecord("ns/c/b/1.db", T.minusDays(1), 42L, "file:/b/1.db");
    stored.backups = List.of(stored.lastBackup);
    stored.backupCount = 1;
    stored.nextScheduleTime = T;
    stored.lastRevision = 101L;

    BackupStatus read = BackupStatus.of(stored);
    assertThat(read.lastBackup).isEqualTo(stored.lastBackup);
    assertThat(read.nextScheduleTime).isEqualTo(T);
    assertThat(read.conditions).isEqualTo(stored.conditions);

    KindStatus written = read.copy().as(KindStatus.class);
    assertThat(written).usingRecursiveComparison().isEqualTo(stored);

    read.set("lastRevision", 102L);
    read.inProgress = BackupProgress.of(T.toInstant(), "ns/c/b/2.db", 7);
    KindStatus changed = read.as(KindStatus.class);
    assertThat(changed.lastRevision).isEqualTo(102L);
    assertThat(changed.inProgress.key()).isEqualTo("ns/c/b/2.db");
  }

  @Test
  void noStatusYetIsAnEmptyOne() {
    KindStatus written = BackupStatus.of(null).as(KindStatus.class);
    assertThat(written).usingRecursiveComparison().isEqualTo(new KindStatus());
  }
}
