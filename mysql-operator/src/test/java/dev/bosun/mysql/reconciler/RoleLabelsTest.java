package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Role labels after a failover: the old primary's label goes first, the new primary's last. */
class RoleLabelsTest {

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
