package dev.bosun.mysql.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.PersonText;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every kind of step has its own reason and a sentence; none renders as a record. */
class StepTextTest {

  private static final Step.CheckContent CHECK =
      new Step.CheckContent("db-2", "db-0", "db-2", "Restarted", 1_780_000_600L, 1_780_000_000L);

  private static final List<Step> ONE_OF_EACH =
      List.of(
          new Step.Steady(),
          new Step.Wait("PrimaryUnreachable", "db-0 has not answered for 4s"),
          new Step.Blocked("NoCompleteCandidate", "no replica holds every acknowledged commit"),
          new Step.Adopt("db-1"),
          new Step.Fence("db-2"),
          new Step.Attach("db-2", "db-0"),
          new Step.Detach("db-2", "db-0"),
          new Step.Promote("db-0", "Bootstrap"),
          new Step.Failover("db-0", List.of("db-1", "db-2")),
          new Step.Switchover("db-0", "db-1", "Requested"),
          new Step.SemiSync("db-0", true),
          new Step.Restore("db-0"),
          new Step.RestoreDone("db-0", "s3://bucket/orders/1.sql"),
          new Step.RestoreSkipped("db-0", List.of("db-0", "db-1")),
          new Step.Rebuild("db-2", "db-1", "ErrantTransactions", "0-100-5"),
          new Step.RebuildDone("db-2", null),
          new Step.ReplaceVolume("db-2", "its server cannot finish crash recovery"),
          new Step.RecordServerStarts(java.util.Map.of("db-0", 1_780_000_000L), "FirstSeen"),
          CHECK,
          new Step.ContentChecked(
              new ContentState.Finished(
                  CHECK,
                  "app.items: 9 rows here, 10 on the primary",
                  null,
                  "1 table, 10 rows on the primary at 0-100-12")));

  @Test
  void everyKindOfStepIsCovered() {
    Set<Class<?>> covered = ONE_OF_EACH.stream().map(Object::getClass).collect(Collectors.toSet());
    assertThat(covered).containsExactlyInAnyOrder(Step.class.getPermittedSubclasses());
  }

  @Test
  void everyStepReadsAsASentenceWithItsOwnReason() {
    for (Step step : ONE_OF_EACH) {
      String sentence = StepText.sentence(step, "OTHERWISE");
      assertThat(PersonText.RENDERED_RECORD.matcher(sentence).find()).as(sentence).isFalse();
      assertThat(sentence).as("%s", step.getClass().getSimpleName()).doesNotContain("=");
      if (!(step instanceof Step.Steady)) {
        assertThat(sentence).isNotEqualTo("OTHERWISE");
        assertThat(StepText.reason(step)).isNotEqualTo("Converged").matches("[A-Z][A-Za-z]+");
      }
    }
  }

  @Test
  void theSentencesSayWhatHappensInWords() {
    assertThat(StepText.sentence(new Step.Attach("catalog-db-2", "catalog-db-0"), ""))
        .isEqualTo("attaching catalog-db-2 as a replica of the primary catalog-db-0");
    assertThat(StepText.sentence(new Step.Promote("catalog-db-0", "Bootstrap"), ""))
        .isEqualTo("catalog-db-0 becomes the primary of the new cluster");
    assertThat(StepText.sentence(new Step.Switchover("db-0", "db-1", "ScaleDown"), ""))
        .isEqualTo(
            "moving the primary from db-0 to db-1 because the scale-down removes the current primary");
    assertThat(StepText.sentence(new Step.SemiSync("db-0", false), ""))
        .isEqualTo("turning semi-sync off on db-0");
    assertThat(StepText.sentence(CHECK, ""))
        .isEqualTo(
            "comparing the data of db-2 with the primary db-0's because the server of db-2"
                + " restarted");
    assertThat(
            StepText.sentence(
                new Step.CheckContent("db-1", "db-2", "db-1", "Disproved", 1L, 2L), ""))
        .isEqualTo(
            "comparing the data of db-1 with the primary db-2's because db-1 was last found the"
                + " same as a member since found to lack rows");
  }

  @Test
  void aFailoverSaysWhichCandidatesItWouldPromoteReadOnly() {
    List<String> both = List.of("db-1", "db-2");
    assertThat(StepText.sentence(new Step.Failover("db-0", both, Set.of("db-1", "db-2")), ""))
        .isEqualTo(
            "the primary db-0 is unreachable; failing over to the most advanced of db-1, db-2; the"
                + " one promoted takes no writes until its data is compared with every other"
                + " member's, since a crash recovery may have lost rows a position claims");
    assertThat(StepText.sentence(new Step.Failover("db-0", both, Set.of("db-2")), ""))
        .contains("db-1, db-2; db-2, if promoted, takes no writes until");
    assertThat(StepText.sentence(new Step.Failover("db-0", both), ""))
        .isEqualTo(
            "the primary db-0 is unreachable; failing over to the most advanced of db-1, db-2");
  }

  @Test
  void everyWhyThePlannerGivesHasWords() {
    for (String why :
        Arrays.asList(
            "Bootstrap", "FullClusterRestart", "RestartedPrimary", "FailedOverCompared")) {
      assertThat(StepText.promotion(why)).isNotEqualTo(StepText.promotion("?"));
    }
    for (String why : Arrays.asList("Requested", "ScaleDown", "DataDiffers")) {
      assertThat(StepText.switchover(why)).isNotEmpty();
    }
    for (String why :
        Arrays.asList(
            "Requested",
            "Resumed",
            "ErrantTransactions",
            "DataDiffers",
            "CrashRecoveryFailed",
            "ReplicationBroken")) {
      assertThat(StepText.rebuild(why)).isNotEmpty();
    }
  }
}
