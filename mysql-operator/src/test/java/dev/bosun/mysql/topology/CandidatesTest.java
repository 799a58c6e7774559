package dev.bosun.mysql.topology;

import static dev.bosun.mysql.topology.TopologyPlannerTest.fenced;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.sql.MariaDbGtids;
import dev.bosun.mysql.sql.MySqlGtids;
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
}
