package dev.bosun.config.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyncConditionsTest {

  @Test
  void anInvalidSpecIsNotReadyAndDegradedNamingEveryProblemWithinTheBound() {
    List<DesiredCondition> conditions =
        SyncConditions.invalidSpec(List.of("a is wrong", "b".repeat(5 * HumanMessages.MAX_LENGTH)));
    assertThat(conditions).hasSize(2);
    assertThat(conditions.get(0).message())
        .contains("a is wrong; bbb")
        .hasSizeLessThanOrEqualTo(2 * HumanMessages.MAX_LENGTH);
    assertThat(conditions).extracting(DesiredCondition::reason).containsOnly("InvalidSpec");
    assertThat(conditions)
        .extracting(DesiredCondition::type)
        .containsExactly(SyncConditions.READY, SyncConditions.DEGRADED);
  }

  @Test
  void aMissingSourceAndAnUnmarkedOneAreToldApart() {
    String missing =
        SyncConditions.sourceNotFound("ConfigMap", "shop", "app", false).get(0).message();
    String unmarked =
        SyncConditions.sourceNotFound("ConfigMap", "shop", "app", true).get(0).message();
    assertThat(missing).isEqualTo("ConfigMap shop/app does not exist");
    assertThat(unmarked)
        .startsWith("ConfigMap shop/app is not marked for syncing: its owner must label it ")
        .contains("=true and list destinations in annotation ");
    assertThat(SyncConditions.sourceNotFound("Secret", "shop", "app", true))
        .extracting(DesiredCondition::reason)
        .containsOnly("SourceNotFound");
  }

  @Test
  void noDestinationIsNotReadyButNotDegraded() {
    assertThat(SyncConditions.of(List.of()))
        .containsExactly(
            DesiredCondition.isFalse(
                SyncConditions.READY,
                "NoDestinations",
                "no destination namespace is named or matches"),
            DesiredCondition.isFalse(SyncConditions.DEGRADED, "AsExpected", "no problem observed"));
  }

  @Test
  void everyDestinationSyncedIsReady() {
    List<DestinationResult> results =
        List.of(
            new DestinationResult("a", State.SYNCED, "1", "in sync"),
            new DestinationResult("b", State.SYNCED, "1", "in sync"));
    String message = "copied to all 2 destination namespaces";
    assertThat(SyncConditions.of(results))
        .containsExactly(
            DesiredCondition.isTrue(SyncConditions.READY, "Synced", message),
            DesiredCondition.isFalse(SyncConditions.DEGRADED, "AsExpected", message));
  }

  @Test
  void theFirstDestinationNotSyncedNamesTheProblemAndItsReason() {
    List<DestinationResult> results =
        List.of(
            new DestinationResult("a", State.SYNCED, "1", "in sync"),
            new DestinationResult("b", State.CONFLICT, null, "taken"),
            new DestinationResult("c", State.NOT_ALLOWED, null, "no consent"));
    String message = "1 of 3 destinations synced; b: taken";
    assertThat(SyncConditions.of(results))
        .containsExactly(
            DesiredCondition.isFalse(SyncConditions.READY, "Conflict", message),
            DesiredCondition.isTrue(SyncConditions.DEGRADED, "Conflict", message));
    assertThat(
            SyncConditions.of(List.of(new DestinationResult("c", State.NOT_ALLOWED, null, "no"))))
        .extracting(DesiredCondition::reason)
        .containsOnly("NotAllowed");
    assertThat(SyncConditions.of(List.of(new DestinationResult("d", State.ERROR, null, "boom"))))
        .extracting(DesiredCondition::reason)
        .containsOnly("SyncError");
  }
}
