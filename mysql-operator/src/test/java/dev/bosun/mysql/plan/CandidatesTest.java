package dev.bosun.mysql.plan;

import static dev.bosun.mysql.plan.TopologyPlannerTest.fenced;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.PersonText;
import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.client.MySqlGtids;
import java.util.List;
import java.util.Set;
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
  void byReceivedACandidatePreferredGoesFirstOnlyAmongThoseHoldingTheMost() {
    var gtids = new MariaDbGtids();
    InstanceState restarted =
        Instance.replica("db-1", 1, "0-1-9", "h", 1).ioRunning(false).lagSeconds(null).build();
    InstanceState knownGood =
        Instance.replica("db-2", 2, "0-1-9", "h", 1).ioRunning(false).lagSeconds(null).build();
    List<InstanceState> both = List.of(restarted, knownGood);
    assertThat(Candidates.chooseByReceived(both, both, gtids).chosen())
        .map(InstanceState::name)
        .contains("db-1");
    assertThat(
            Candidates.chooseByReceived(both, both, gtids, i -> i.name().equals("db-2")).chosen())
        .map(InstanceState::name)
        .contains("db-2");

    // Never one holding less: the preference only breaks a tie.
    InstanceState behind =
        Instance.replica("db-2", 2, "0-1-8", "h", 1).ioRunning(false).lagSeconds(null).build();
    List<InstanceState> uneven = List.of(restarted, behind);
    assertThat(
            Candidates.chooseByReceived(uneven, uneven, gtids, i -> i.name().equals("db-2"))
                .chosen())
        .map(InstanceState::name)
        .contains("db-1");
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

  /** A member booted read-only on its volume: its position and binlog history. */
  private static InstanceState restarted(String name, String executed, String history) {
    return Instance.primary(name, TopologyPlannerTest.ord(name), executed)
        .readOnly(true)
        .semiSyncSourceOn(false)
        .history(history)
        .build();
  }

  @Test
  void forkedHistoriesAreNeverChosenBetweenWhateverTheSequenceNumbersSay() {
    // db-0, the old primary, wrote 0-100-101..105 nobody acknowledged; db-1 was promoted at
    // 0-100-100 and acknowledged 0-101-101..103, which db-2 replicated. No status remembers it.
    var all =
        List.of(
            restarted("db-0", "0-100-105", "0-100-105"),
            restarted("db-1", "0-101-103", "0-100-100,0-101-103"),
            restarted("db-2", "0-101-103", "0-100-100,0-101-103"));
    var choice = Candidates.chooseExcept(all, all, Set.of(), new MariaDbGtids());
    assertThat(choice.chosen()).isEmpty();
    assertThat(choice.reason()).isEqualTo("DivergedHistories");
    assertThat(choice.message())
        .startsWith("db-0 and db-1 hold different histories after 0-100-100: ")
        .contains("db-0 has transactions up to 0-100-105, which db-1 lacks")
        .contains("db-1 has transactions up to 0-101-103, which db-0 lacks")
        .contains("neither is promoted", "PersistentVolumeClaim");
    assertThat(PersonText.RENDERED_RECORD.matcher(choice.message()).find()).isFalse();
    // The plain choice compares histories too.
    assertThat(Candidates.choose(all, all, new MariaDbGtids()).reason())
        .isEqualTo("DivergedHistories");
  }

  @Test
  void aHistoryThatHoldsEveryOtherIsChosenAsBefore() {
    // The old primary wrote nothing after the promotion point: db-1's history holds it all.
    var all =
        List.of(
            restarted("db-0", "0-100-100", "0-100-100"),
            restarted("db-1", "0-101-103", "0-100-100,0-101-103"),
            restarted("db-2", "0-101-101", "0-100-100,0-101-101"));
    var choice = Candidates.chooseExcept(all, all, Set.of(), new MariaDbGtids());
    assertThat(choice.chosen()).map(InstanceState::name).contains("db-1");
  }

  @Test
  void equalHistoriesGoToTheLowestOrdinal() {
    var all =
        List.of(
            restarted("db-2", "0-101-103", "0-101-103,0-100-100"),
            restarted("db-1", "0-101-103", "0-100-100,0-101-103"));
    assertThat(Candidates.chooseExcept(all, all, Set.of(), new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-1");
  }

  @Test
  void anEmptyMemberIsHeldByEveryHistoryAndNeverChosen() {
    var all =
        List.of(
            restarted("db-0", "", ""),
            restarted("db-1", "0-101-103", "0-100-100,0-101-103"),
            restarted("db-2", "0-101-103", "0-100-100,0-101-103"));
    assertThat(Candidates.chooseExcept(all, all, Set.of(), new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-1");
  }

  @Test
  void aForkInOneDomainBlocksEvenWhenTheOtherDomainAgrees() {
    var all =
        List.of(
            restarted("db-0", "0-1-50,1-1-105", "0-1-50,1-1-105"),
            restarted("db-1", "0-1-50,1-2-103", "0-1-50,1-1-100,1-2-103"));
    var choice = Candidates.chooseExcept(all, all, Set.of(), new MariaDbGtids());
    assertThat(choice.reason()).isEqualTo("DivergedHistories");
    assertThat(choice.message()).contains("after 0-1-50,1-1-100", "1-1-105", "1-2-103");
  }

  @Test
  void anErrantMembersOwnForkDoesNotBlockOnlyWhatItReceivedMustBeHeld() {
    // db-0 is known errant (its writes beyond the promotion point): its own history may fork.
    InstanceState oldPrimary =
        Instance.primary("db-0", 0, "0-100-105")
            .readOnly(true)
            .semiSyncSourceOn(false)
            .history("0-100-105")
            .replicated("0-100-90")
            .build();
    var candidates =
        List.of(
            restarted("db-1", "0-101-103", "0-100-100,0-101-103"),
            restarted("db-2", "0-101-103", "0-100-100,0-101-103"));
    var all = List.of(oldPrimary, candidates.get(0), candidates.get(1));
    var choice = Candidates.chooseExcept(candidates, all, Set.of("db-0"), new MariaDbGtids());
    assertThat(choice.chosen()).map(InstanceState::name).contains("db-1");
  }

  @Test
  void mySqlSetsThatForkAreDivergedHistoriesToo() {
    var all =
        List.of(
            restarted("db-0", "aaaa:1-105", "aaaa:1-105"),
            restarted("db-1", "aaaa:1-100,bbbb:1-3", "aaaa:1-100,bbbb:1-3"));
    var choice = Candidates.chooseExcept(all, all, Set.of(), new MySqlGtids());
    assertThat(choice.reason()).isEqualTo("DivergedHistories");
    assertThat(choice.message())
        .contains("after aaaa:1-100", "db-0 has transactions up to aaaa:101-105")
        .contains("db-1 has transactions up to bbbb:1-3");
  }

  @Test
  void aFailoverChoosesByWhatWasReceivedWhateverTheBinlogsSay() {
    // db-1 received 0-1-110 and applied 105; db-2 applied 108. Only the receipt counts here.
    InstanceState received =
        Instance.replica("db-1", 1, "0-1-105", "h", 1)
            .ioRunning(false)
            .lagSeconds(null)
            .received("0-1-110")
            .history("0-1-105")
            .build();
    InstanceState applied =
        Instance.replica("db-2", 2, "0-1-108", "h", 1)
            .ioRunning(false)
            .lagSeconds(null)
            .history("0-1-108")
            .build();
    var both = List.of(received, applied);
    assertThat(Candidates.chooseByReceived(both, both, new MariaDbGtids()).chosen())
        .map(InstanceState::name)
        .contains("db-1");
  }
}
