package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.plan.ContentChecking;
import dev.bosun.mysql.plan.ContentState;
import dev.bosun.mysql.plan.Step;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a finished comparison records, and who it keeps out. */
class ContentStepsTest {

  private static final long T0 = 1_780_000_000L;
  private final ContentSteps steps =
      new ContentSteps(Clock.fixed(Instant.parse("2026-12-01T18:00:00Z"), ZoneOffset.UTC));

  private static StepExecutor.Context context() {
    TopologyRecord rec =
        new TopologyRecord(
            "db-0",
            null,
            "",
            null,
            null,
            null,
            null,
            new ContentRecord(
                Map.of("db-0", T0, "db-1", T0 + 1, "db-2", T0 + 2), Map.of(), null, null));
    return new StepExecutor.Context(Map.of(), rec, true, 10_000, null, saved -> {});
  }

  private Outcome checked(String suspect, String differences, String lacking) {
    Step.CheckContent c =
        new Step.CheckContent(
            "db-1",
            "db-0",
            suspect,
            suspect == null ? "NeitherKnownGood" : "Restarted",
            T0 + 601,
            T0 + 600);
    return steps.checked(
        new Step.ContentChecked(
            new ContentState.Finished(c, differences, null, "1 table, 20 rows", lacking)),
        context());
  }

  @Test
  void theSameDataRecordsBothNewStartsAsVerified() {
    Outcome o = checked("db-1", null, null);
    assertThat(o.reason()).isEqualTo("DataVerified");
    assertThat(o.record().content().verifiedStarts())
        .containsEntry("db-0", T0 + 600)
        .containsEntry("db-1", T0 + 601);
    assertThat(o.record().content().differing()).isEmpty();
  }

  @Test
  void aRestartedReplicaThatDiffersIsKeptOutAndItsStartStaysUnverified() {
    Outcome o =
        checked(
            "db-1", "app.items: 19 rows here, 20 on the primary", ContentState.Finished.REPLICA);
    assertThat(o.eventType()).isEqualTo("Warning");
    assertThat(o.reason()).isEqualTo("DataDiffers");
    assertThat(o.record().content().differing())
        .containsExactly(Map.entry("db-1", "app.items: 19 rows here, 20 on the primary"));
    assertThat(o.record().content().verifiedStarts()).containsEntry("db-1", T0 + 1);
  }

  @Test
  void aRestartedPrimaryThatDiffersIsMarkedToHandOver() {
    Outcome o =
        checked(
            "db-0", "app.items: 20 rows here, 19 on the primary", ContentState.Finished.PRIMARY);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-0");
    assertThat(o.message()).contains("the primary moves to a replica known good");
  }

  @Test
  void whenBothRestartedAReplicaThatOnlyLacksRowsIsKeptOut() {
    // Seed 118: the primary and db-0 had both restarted, db-0's recovery had lost a row, and with
    // nobody kept out a rebuild then copied db-0, the row missing, into db-1.
    Outcome o =
        checked(null, "app.items: 19 rows here, 20 on the primary", ContentState.Finished.REPLICA);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-1");
    assertThat(o.message()).contains("db-1 lacks rows the primary holds, so db-1 is kept out");
  }

  @Test
  void whenNeitherWasKnownGoodAPrimaryThatLacksRowsIsMarkedToHandOver() {
    // Seed 945775: after a re-create the primary chosen by position had come back from a crash
    // without a row; taking both sides as good kept the row lost on the primary.
    Outcome o =
        checked(null, "app.items: 21 rows here, 20 on the primary", ContentState.Finished.PRIMARY);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-0");
    assertThat(o.record().content().verifiedStarts()).containsEntry("db-1", T0 + 601);
    assertThat(o.message())
        .contains(
            "the primary lacks rows db-1 holds, so the primary moves to a replica known good");
  }

  /**
   * Seed 15136: both recoveries lost a row (the replica an acknowledged one); recording both as
   * known good let the lossy replica be copied by a rebuild and stay a failover candidate.
   */
  @Test
  void whenNeitherWasKnownGoodAndNoSideOnlyLacksRowsTheReplicaIsKeptOutAndNeitherKnownGood() {
    Outcome o = checked(null, "app.items: the same 20 rows in number, other contents", null);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-1");
    assertThat(o.record().content().verifiedStarts())
        .containsEntry("db-0", T0)
        .containsEntry("db-1", T0 + 1);
    assertThat(o.reason()).isEqualTo("DataDiffers");
    assertThat(o.message())
        .contains(
            "which copy is right cannot be told, so db-1 is kept out of the cluster until it is"
                + " rebuilt and the data of the primary db-0 is not known good either");
  }

  /**
   * Seed 614468: the primary and a replica had lost the same acknowledged row, agreed when compared
   * with each other, and the restarted third member, the only one holding the row, was rebuilt from
   * them. A suspect holding rows the primary lacks, none twice, disproves the primary instead.
   */
  @Test
  void aSuspectHoldingRowsThePrimaryLacksMakesThePrimaryHandOverAndEveryOtherBeComparedAgain() {
    Outcome o =
        checked(
            "db-1", "app.items: 21 rows here, 20 on the primary", ContentState.Finished.PRIMARY);
    assertThat(o.eventType()).isEqualTo("Warning");
    assertThat(o.reason()).isEqualTo("DataDiffers");
    assertThat(o.record().content().differing())
        .containsExactly(Map.entry("db-0", "app.items: 21 rows here, 20 on the primary"));
    assertThat(o.record().content().verifiedStarts())
        .as("db-2 was known good, perhaps by agreeing with db-0: compared again")
        .containsOnly(Map.entry("db-1", T0 + 601), Map.entry("db-2", ContentChecking.DISPROVED));
    assertThat(o.message())
        .isEqualTo(
            "db-1's data differs from the primary db-0's (compared because the server of db-1"
                + " restarted): app.items: 21 rows here, 20 on the primary; db-1 holds rows db-0"
                + " lacks and none twice; a crash recovery loses rows, it does not make them, so"
                + " db-0 lost them though it was taken as known good, and so may have any member"
                + " found the same as it: the primary moves to db-1, then db-0 is kept out until"
                + " it is rebuilt (annotation mysql.bosun.dev/rebuild=db-0, or"
                + " spec.replication.rebuild Automatic), and the other members are compared"
                + " again");
  }

  @Test
  void aRestartedPrimaryHoldingRowsAReplicaKnownGoodLacksKeepsThatReplicaOut() {
    Outcome o =
        checked(
            "db-0", "app.items: 19 rows here, 20 on the primary", ContentState.Finished.REPLICA);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-1");
    assertThat(o.record().content().verifiedStarts())
        .containsOnly(Map.entry("db-0", T0 + 600), Map.entry("db-2", ContentChecking.DISPROVED));
    assertThat(o.message())
        .contains("db-0 holds rows db-1 lacks and none twice")
        .contains(": db-1 is kept out until it is rebuilt");
  }

  @Test
  void aSuspectHoldingMoreRowsWithOneTwiceIsKeptOutAsEver() {
    Outcome o =
        checked("db-1", "app.items: 21 rows here, 20 on the primary (1 row held twice here)", null);
    assertThat(o.record().content().differing()).containsOnlyKeys("db-1");
    assertThat(o.record().content().verifiedStarts())
        .containsEntry("db-0", T0 + 600)
        .containsEntry("db-1", T0 + 1)
        .containsEntry("db-2", T0 + 2);
  }
}
