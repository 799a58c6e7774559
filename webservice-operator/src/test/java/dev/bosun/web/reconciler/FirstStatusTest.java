package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FirstStatusTest {

  private static final Instant CREATED = Instant.parse("2026-11-26T02:00:00Z");

  /** The WebService's Deployment, created at {@code at}. */
  private static Optional<Deployment> created(Instant at) {
    return Optional.of(
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("shop")
            .withCreationTimestamp(at == null ? null : at.toString())
            .endMetadata()
            .build());
  }

  private static Clock at(Duration sinceCreation) {
    return Clock.fixed(CREATED.plus(sinceCreation), ZoneOffset.UTC);
  }

  private static WebServiceStatus status(String ready, String reason, String degraded) {
    WebServiceStatus status = new WebServiceStatus();
    status.setConditions(
        List.of(condition("Ready", ready, reason), condition("Degraded", degraded, "AsExpected")));
    return status;
  }

  private static Condition condition(String type, String status, String reason) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).build();
  }

  private static final WebServiceStatus ROLLING_OUT = status("False", "RollingOut", "False");

  @Test
  void aNewWebServiceRollingOutWaitsUntilTheWaitIsOver() {
    assertThat(
            FirstStatus.remainingWait(
                created(CREATED), null, ROLLING_OUT, at(Duration.ofSeconds(3))))
        .contains(FirstStatus.WAIT.minusSeconds(3));
  }

  @Test
  void newsIsWrittenAtOnce() {
    Clock soon = at(Duration.ofSeconds(1));
    assertThat(
            FirstStatus.remainingWait(
                created(CREATED), null, status("True", "Ready", "False"), soon))
        .isEmpty();
    assertThat(
            FirstStatus.remainingWait(
                created(CREATED), null, status("False", "RollingOut", "True"), soon))
        .isEmpty();
  }

  @Test
  void aWebServiceWithAStatusOrPastTheWaitIsWrittenAtOnce() {
    assertThat(
            FirstStatus.remainingWait(
                created(CREATED), ROLLING_OUT, ROLLING_OUT, at(Duration.ofSeconds(1))))
        .isEmpty();
    assertThat(FirstStatus.remainingWait(created(CREATED), null, ROLLING_OUT, at(FirstStatus.WAIT)))
        .isEmpty();
    assertThat(FirstStatus.remainingWait(created(null), null, ROLLING_OUT, at(Duration.ZERO)))
        .isEmpty();
    assertThat(FirstStatus.remainingWait(Optional.empty(), null, ROLLING_OUT, at(Duration.ZERO)))
        .isEmpty();
  }

  @Test
  void aClockBehindTheApiServersNeverStretchesTheWait() {
    assertThat(
            FirstStatus.remainingWait(
                created(CREATED), null, ROLLING_OUT, at(Duration.ofMinutes(-5))))
        .contains(FirstStatus.WAIT);
  }
}
