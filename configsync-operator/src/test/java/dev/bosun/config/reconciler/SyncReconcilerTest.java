package dev.bosun.config.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.DesiredCondition;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyncReconcilerTest {

  private static DestinationResult result(String ns, State state) {
    return new DestinationResult(ns, state, null, state == State.SYNCED ? "in sync" : "blocked");
  }

  @Test
  void aValidSpecHasNoProblems() {
    assertThat(ConfigSyncValidator.syncProblems("ConfigMapSync", "shop-config", null)).isEmpty();
  }

  @Test
  void aNameTooLongForTheCopiesLabelAndABrokenSelectorAreBothNamed() {
    var selector =
        new LabelSelectorBuilder()
            .addNewMatchExpression()
            .withKey("team")
            .withOperator("Exists")
            .withValues("a")
            .endMatchExpression()
            .build();
    List<String> problems =
        ConfigSyncValidator.syncProblems("SecretSync", "n".repeat(64), selector);
    assertThat(problems).hasSize(2);
    assertThat(problems.get(0))
        .startsWith("metadata.name: the SecretSync name")
        .endsWith(
            " (every copy carries it in the label "
                + ConfigSyncOperator.SYNC_NAME_LABEL
                + "); choose a shorter name");
    assertThat(problems.get(1))
        .isEqualTo(
            "spec.destinations.namespaceSelector.matchExpressions[0] (team Exists): Exists and"
                + " DoesNotExist take no values");
  }

  @Test
  void onlySyncedDestinationsCarryTheSourceVersion() {
    List<DestinationResult> stamped =
        SyncReconciler.atVersion(
            List.of(result("a", State.SYNCED), result("b", State.CONFLICT)), "42");
    assertThat(stamped)
        .containsExactly(
            new DestinationResult("a", State.SYNCED, "42", "in sync"),
            new DestinationResult("b", State.CONFLICT, null, "blocked"));
  }

  @Test
  void conflictsAndErrorsAreLookedAtAgainButRefusedConsentIsNot() {
    assertThat(SyncReconciler.recheck(List.of(result("a", State.SYNCED)))).isFalse();
    assertThat(SyncReconciler.recheck(List.of(result("a", State.NOT_ALLOWED)))).isFalse();
    assertThat(SyncReconciler.recheck(List.of(result("a", State.CONFLICT)))).isTrue();
    assertThat(SyncReconciler.recheck(List.of(result("a", State.ERROR)))).isTrue();
  }

  @Test
  void theFirstProblemDestinationNamesTheConditions() {
    List<DesiredCondition> conditions =
        SyncReconciler.conditions(
            List.of(result("a", State.SYNCED), result("b", State.NOT_ALLOWED)));
    assertThat(conditions.get(0).reason()).isEqualTo("NotAllowed");
    assertThat(conditions.get(0).message()).isEqualTo("1 of 2 destinations synced; b: blocked");
  }
}
