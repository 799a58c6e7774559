package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.execute.Outcome;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Instance;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.Plan;
import dev.bosun.mysql.plan.Step;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which role each member should carry after a round, and the order labels change in after a
 * failover: the old primary's label goes first, the new primary's last.
 */
class RoleLabelsTest {

  private static final Map<String, Address> ADDRESSES =
      Map.of(
          "db-0", new Address("127.0.0.1", 3300),
          "db-1", new Address("127.0.0.1", 3301),
          "db-2", new Address("127.0.0.1", 3302));

  private static TopologyController.Tick tick(
      String primary, Step step, Set<String> errant, InstanceState... observed) {
    return new TopologyController.Tick(
        List.of(observed),
        new Plan(step, errant),
        new Outcome(new TopologyRecord(primary, null, "", null, null, null), null, null, null),
        null,
        null);
  }

  @Test
  void theWritablePrimaryAndItsFollowingReplicasAreLabelledAnErrantOneIsNot() {
    var t =
        tick(
            "db-0",
            new Step.Steady(),
            Set.of("db-2"),
            Instance.primary("db-0", 0, "0-1-5").build(),
            Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300).build(),
            Instance.replica("db-2", 2, "0-1-6", "127.0.0.1", 3300).build());
    assertThat(RoleLabels.wanted(t, ADDRESSES, roles("db-2", "replica")))
        .containsEntry("db-0", "primary")
        .containsEntry("db-1", "replica")
        .containsEntry("db-2", null);
  }

  @Test
  void aMemberPromotedThisRoundIsLabelledAtOnceAndRepointedReplicasKeepTheirLabel() {
    // Observed before the step: db-1 still read-only, db-2 still following the old primary.
    var t =
        tick(
            "db-1",
            new Step.Failover("db-0", List.of("db-1")),
            Set.of(),
            Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300).build(),
            Instance.replica("db-2", 2, "0-1-5", "127.0.0.1", 3300).build());
    assertThat(t.promoted()).isEqualTo("db-1");
    assertThat(RoleLabels.wanted(t, ADDRESSES, roles("db-1", "replica", "db-2", "replica")))
        .containsEntry("db-1", "primary")
        .containsEntry("db-2", "replica");
  }

  @Test
  void aRecordedPrimaryThatTakesNoWritesIsNotLabelledPrimary() {
    var t =
        tick(
            "db-0",
            new Step.Steady(),
            Set.of(),
            Instance.primary("db-0", 0, "0-1-5").readOnly(true).build(),
            Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300).build());
    assertThat(RoleLabels.wanted(t, ADDRESSES, roles("db-0", "primary")))
        .containsEntry("db-0", null)
        .containsEntry("db-1", "replica");
  }

  private static Map<String, String> roles(String... podAndRole) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < podAndRole.length; i += 2) {
      m.put(podAndRole[i], podAndRole[i + 1]);
    }
    return m;
  }

  @Test
  void afterAFailoverTheOldPrimaryLosesItsLabelBeforeTheNewOneGetsIt() {
    var current = roles("db-0", "primary", "db-1", "replica", "db-2", "replica");
    var wanted = roles("db-0", null, "db-1", "replica", "db-2", "primary");
    assertThat(RoleLabels.changes(wanted, current))
        .containsExactly(
            new RoleLabels.Change("db-0", null), new RoleLabels.Change("db-2", "primary"));
  }

  @Test
  void aSwitchoverDemotesFirstAndPromotesLast() {
    var current = roles("db-0", "replica", "db-1", "primary", "db-2", null);
    var wanted = roles("db-0", "primary", "db-1", "replica", "db-2", "replica");
    assertThat(RoleLabels.changes(wanted, current))
        .containsExactly(
            new RoleLabels.Change("db-1", "replica"),
            new RoleLabels.Change("db-2", "replica"),
            new RoleLabels.Change("db-0", "primary"));
  }

  @Test
  void podsThatAreRightOrUnobservedNeedNothingOrLoseTheLabel() {
    var current = roles("db-0", "primary", "db-1", "replica", "db-3", "replica");
    var wanted = roles("db-0", "primary", "db-1", "replica");
    assertThat(RoleLabels.changes(wanted, current))
        .containsExactly(new RoleLabels.Change("db-3", null));
    assertThat(RoleLabels.changes(wanted, roles("db-0", "primary", "db-1", "replica"))).isEmpty();
  }

  @Test
  void thePatchSetsOrRemovesOnlyTheRoleLabel() {
    assertThat(RoleLabels.patch("primary"))
        .isEqualTo("{\"metadata\":{\"labels\":{\"mysql.bosun.dev/role\":\"primary\"}}}");
    assertThat(RoleLabels.patch(null))
        .isEqualTo("{\"metadata\":{\"labels\":{\"mysql.bosun.dev/role\":null}}}");
  }
}
