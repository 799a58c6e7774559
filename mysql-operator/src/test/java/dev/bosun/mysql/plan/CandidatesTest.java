package dev.bosun.mysql.plan;

import static dev.bosun.mysql.plan.TopologyPlannerTest.fenced;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.client.MySqlGtids;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The choice of a new primary: most advanced, never empty or older, ties to the lowest ordinal. */
class CandidatesTest {

  @Test
  void theMostAdvancedCandidateWins() {
    var all = List.of(fenced("db-1", "0-1-5"), fenced("db-2", "0-1-7"));
    assertThat(Candidates.choose(all, all, new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-2");
  }

  @Test
  void tiesGoToTheLowestOrdinal() {
    var all = List.of(fenced("db-2", "0-1-7"), fenced("db-1", "0-1-7"));
    assertThat(Candidates.choose(all, all, new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-1");
  }

  @Test
  void aCandidateThatMissesTransactionsOfANonCandidateIsNotChosen() {
    var candidates = List.of(fenced("db-1", "aaaa:1-5"));
    var all = List.of(fenced("db-1", "aaaa:1-5"), fenced("db-2", "aaaa:1-7"));
    var choice = Candidates.choose(candidates, all, new MySqlGtids());
    assertThat(choice.chosen()).isEmpty();
    assertThat(choice.message()).contains("db-2");
  }

  @Test
  void anEmptyMemberIsNeverChosenOverOneWithData() {
    var all = List.of(fenced("db-0", ""), fenced("db-1", "0-1-1"));
    assertThat(Candidates.choose(all, all, new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-1");
  }

  @Test
  void noCandidatesMeansNoChoice() {
    assertThat(Candidates.choose(List.of(), List.of(), new MariaDbGtids()).reason())
        .isEqualTo("NoCandidate");
  }

  @Test
  void byReceivedTheReplicaThatReceivedMostWinsEvenIfItAppliedLess() {
    // db-1 applied 8 but received 10 (semi-sync acknowledged 9 and 10 on receipt); db-2 applied 9.
    InstanceState received =
        Instance.replica("db-1", 1, "0-1-8", "h", 1)
            .ioRunning(false)
            .sqlRunning(false)
            .lagSeconds(null)
            .received("0-1-10")
            .build();
    InstanceState applied =
        Instance.replica("db-2", 2, "0-1-9", "h", 1).ioRunning(false).lagSeconds(null).build();
    List<InstanceState> both = List.of(received, applied);
    assertThat(Candidates.choose(both, both, new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-2");
    Candidates.Choice choice = Candidates.chooseByReceived(both, both, new MariaDbGtids());
    assertThat(choice.chosen()).map(InstanceState::name).contains("db-1");
    assertThat(received.held(new MariaDbGtids())).isEqualTo("0-1-10");
  }

  @Test
  void followersAreTheOtherCandidatesTheChosenOneHolds() {
    var gtids = new MariaDbGtids();
    var chosen = fenced("db-2", "0-1-12");
    var candidates =
        List.of(
            fenced("db-1", "0-1-10"),
            chosen,
            fenced("db-3", "0-1-12"),
            fenced("db-4", "0-1-12,1-4-3"));
    // db-4 holds a transaction (domain 1) the chosen one lacks: it never follows it.
    assertThat(Candidates.followers(chosen, candidates, gtids)).containsExactly("db-1", "db-3");
  }

  @Test
  void whatAFollowerReceivedCountsNotOnlyWhatItApplied() {
    var gtids = new MariaDbGtids();
    var chosen = fenced("db-1", "0-1-10");
    var ahead =
        Instance.replica("db-2", 2, "0-1-9", "h", 1)
            .ioRunning(false)
            .lagSeconds(null)
            .received("0-1-11")
            .build();
    assertThat(Candidates.followers(chosen, List.of(chosen, ahead), gtids)).isEmpty();
  }
}
