package dev.bosun.config.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.monitor.RolloutDecision;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigMonitorReconcilerTest {

  private static final Instant T0 = Instant.parse("2025-01-01T10:00:00Z");

  private static ConfigMonitorSpec spec(List<String> configMaps, boolean selector) {
    ConfigMonitorSpec spec = new ConfigMonitorSpec();
    spec.setConfigMaps(configMaps);
    if (selector) {
      spec.setSelector(new LabelSelectorBuilder().addToMatchLabels("app", "shop").build());
    }
    return spec;
  }

  private static ConfigMonitorStatus pending() {
    ConfigMonitorStatus status = new ConfigMonitorStatus();
    status.setConfigHash("h1");
    status.setPendingHash("h2");
    status.setPendingSince(ZonedDateTime.parse("2025-01-01T09:59:00Z"));
    return status;
  }

  @Test
  void aSpecNeedsSomethingToWatchAndASelector() {
    assertThat(ConfigMonitorReconciler.specProblem(spec(List.of(), true)))
        .hasValue(
            "invalid spec: spec.configMaps, spec.secrets: watch at least one ConfigMap or Secret");
    assertThat(ConfigMonitorReconciler.specProblem(spec(List.of("app"), false)))
        .hasValue("invalid spec: spec.selector: select the workloads to roll");
    assertThat(ConfigMonitorReconciler.specProblem(spec(List.of("app"), true))).isEmpty();
  }

  @Test
  void aBrokenSelectorIsNamedByItsField() {
    ConfigMonitorSpec spec = spec(List.of("app"), false);
    spec.setSelector(
        new LabelSelectorBuilder()
            .addNewMatchExpression()
            .withKey("tier")
            .withOperator("In")
            .endMatchExpression()
            .build());
    assertThat(ConfigMonitorReconciler.specProblem(spec))
        .hasValue(
            "invalid spec: spec.selector.matchExpressions[0] (tier In): In and NotIn need values");
  }

  @Test
  void missingConfigurationIsListedWithTheRecheckInterval() {
    assertThat(ConfigMonitorReconciler.notFound(List.of("ConfigMap a", "Secret b"), "shop"))
        .isEqualTo("ConfigMap a, Secret b not found in namespace shop (checked again every 5 s)");
  }

  @Test
  void aBaselineRecordsTheHashAndAnUnchangedOneKeepsItBothDroppingThePendingChange() {
    ConfigMonitorStatus baseline = pending();
    ConfigMonitorStatus unchanged = pending();
    assertThat(ConfigMonitorReconciler.recordWaiting(new RolloutDecision.Baseline("h3"), baseline))
        .isEmpty();
    assertThat(ConfigMonitorReconciler.recordWaiting(new RolloutDecision.Unchanged(), unchanged))
        .isEmpty();
    assertThat(List.of(baseline.getConfigHash(), unchanged.getConfigHash()))
        .containsExactly("h3", "h1");
    for (ConfigMonitorStatus status : List.of(baseline, unchanged)) {
      assertThat(status.getPendingHash()).isNull();
      assertThat(status.getPendingSince()).isNull();
    }
  }

  @Test
  void aNewChangeIsRecordedAsPendingAndWaitsTheWholeWindow() {
    ConfigMonitorStatus status = new ConfigMonitorStatus();
    var decision = new RolloutDecision.StartWaiting("h2", T0, Duration.ofSeconds(30));
    assertThat(ConfigMonitorReconciler.recordWaiting(decision, status))
        .hasValue(Duration.ofSeconds(30));
    assertThat(status.getPendingHash()).isEqualTo("h2");
    assertThat(status.getPendingSince()).isEqualTo(ZonedDateTime.parse("2025-01-01T10:00:00Z"));
  }

  @Test
  void aPendingChangeWaitsTheRestOfTheWindowAndARollIsLeftToTheRoller() {
    ConfigMonitorStatus status = pending();
    assertThat(
            ConfigMonitorReconciler.recordWaiting(
                new RolloutDecision.KeepWaiting(Duration.ofSeconds(7)), status))
        .hasValue(Duration.ofSeconds(7));
    assertThat(ConfigMonitorReconciler.recordWaiting(new RolloutDecision.Roll("h2"), status))
        .isEmpty();
    assertThat(status.getConfigHash()).isEqualTo("h1");
    assertThat(status.getPendingHash()).isEqualTo("h2");
  }
}
