package dev.bosun.mysql.plan;

import static dev.bosun.mysql.plan.TopologyPlannerTest.down;
import static dev.bosun.mysql.plan.TopologyPlannerTest.primary;
import static dev.bosun.mysql.plan.TopologyPlannerTest.replica;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.client.MySqlGtids;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A replica is removed only when a remaining replica holds everything it holds. */
class ScaleDownTest {

  private final MariaDbGtids maria = new MariaDbGtids();

  @Test
  void aReplicaStaysUntilTheRemainingReplicaHoldsWhatItHolds() {
    // Chaos seed 371178: db-2 went while db-1 lagged; the primary died next and db-1 was promoted
    // without two commits db-2 had acknowledged.
    var lagging =
        List.of(
            primary("db-0", "0-1-20"),
            replica("db-1", "0-1-12", "db-0"),
            replica("db-2", "0-1-20", "db-0"));
    assertThat(ScaleDown.holdBack(lagging, 2, maria))
        .contains("db-2 holds transactions (up to 0-1-20) no remaining replica has applied");

    var caughtUp =
        List.of(
            primary("db-0", "0-1-20"),
            replica("db-1", "0-1-20", "db-0"),
            replica("db-2", "0-1-20", "db-0"));
    assertThat(ScaleDown.holdBack(caughtUp, 2, maria)).isNull();
  }

  @Test
  void scaledToThePrimaryAloneThePrimaryIsTheHolder() {
    var observed = List.of(primary("db-0", "0-1-20"), replica("db-1", "0-1-20", "db-0"));
    assertThat(ScaleDown.holdBack(observed, 1, maria)).isNull();
  }

  @Test
  void aReplicaHoldingWhatNoRemainingMemberHasIsKept() {
    // db-2 received 0-1-21 (acknowledged it); the remaining members have applied up to 20.
    InstanceState ahead =
        Instance.replica("db-2", 2, "0-1-20", "127.0.0.1", 3300).received("0-1-21").build();
    var observed = List.of(primary("db-0", "0-1-20"), replica("db-1", "0-1-20", "db-0"), ahead);
    assertThat(ScaleDown.holdBack(observed, 2, maria))
        .contains("db-2 holds transactions (up to 0-1-21)");
  }

  @Test
  void anUnobservableReplicaIsNotRemovedBlind() {
    var observed =
        List.of(primary("db-0", "0-1-20"), replica("db-1", "0-1-20", "db-0"), down("db-2"));
    assertThat(ScaleDown.holdBack(observed, 2, maria)).contains("db-2 cannot be observed");
  }

  @Test
  void mySqlSetsAreComparedWhole() {
    var observed =
        List.of(primary("db-0", "aaaa:1-20"), replica("db-1", "aaaa:1-20,bbbb:1", "db-0"));
    assertThat(new MySqlGtids().covers("aaaa:1-20", "aaaa:1-20,bbbb:1")).isFalse();
    assertThat(ScaleDown.holdBack(observed, 1, new MySqlGtids())).contains("db-1");
  }
}
