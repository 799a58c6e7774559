package dev.bosun.config.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
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
}
