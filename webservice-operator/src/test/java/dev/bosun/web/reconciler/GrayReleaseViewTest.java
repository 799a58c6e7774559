package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.WebServices;
import dev.bosun.web.rollout.RolloutState;
import dev.bosun.web.rollout.RolloutState.Phase;
import dev.bosun.web.rollout.RolloutStep.Abort;
import dev.bosun.web.rollout.RolloutStep.Announcement;
import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.rollout.RolloutStep.Steady;
import dev.bosun.web.status.RolloutView;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import dev.bosun.web.v1alpha1.webservicestatus.Rollout;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The status of a gray release after each kind of step. */
class GrayReleaseViewTest {

  private static final Instant STARTED = Instant.parse("2026-11-27T20:00:00Z");

  private static final WebService GRAY =
      WebServices.fromYaml(
          "gray",
          """
          image: registry.example.com/gray:1.1
          replicas: 4
          ports: [{port: 80}]
          rollout:
            canary:
              steps: [{weight: 25}, {weight: 50}]
          """);

  private static RolloutState state(Phase phase, int step) {
    return new RolloutState(phase, step, "aaa", "bbb", STARTED);
  }

  private static Optional<Deployment> canaryWithReady(int ready) {
    return Optional.of(
        new DeploymentBuilder().withNewStatus().withReadyReplicas(ready).endStatus().build());
  }

  @Test
  void aCanaryStepSaysWhatRunsWhere() {
    RolloutView view =
        GrayRelease.view(
                GRAY,
                new RunCanary(
                    state(Phase.PROGRESSING, 1), 50, 2, 2, Optional.empty(), Optional.empty()),
                canaryWithReady(1))
            .orElseThrow();

    Rollout r = view.status();
    assertThat(r.getPhase()).isEqualTo("Progressing");
    assertThat(r.getStep()).isEqualTo(2);
    assertThat(r.getSteps()).isEqualTo(2);
    assertThat(r.getWeight()).isEqualTo(50);
    assertThat(r.getCanaryReplicas()).isEqualTo(2);
    assertThat(r.getCanaryReadyReplicas()).isEqualTo(1);
    assertThat(r.getMessage())
        .isEqualTo(
            "canary step 2 of 2: revision bbb runs 2 of 4 replicas (50%, 1 ready), revision aaa"
                + " the other 2");
    assertThat(view.ready().reason()).isEqualTo("CanaryRollout");
    assertThat(view.degraded()).isNull();
  }

  @Test
  void aPromotionTakesEveryReplica() {
    RolloutView view =
        GrayRelease.view(
                GRAY,
                new Promote(state(Phase.PROMOTING, 1), 2, Optional.empty()),
                canaryWithReady(2))
            .orElseThrow();

    assertThat(view.status().getWeight()).isEqualTo(100);
    assertThat(view.status().getMessage())
        .isEqualTo(
            "promoting revision bbb: the stable Deployment takes it on all 4 replicas, then the"
                + " canary is removed");
    assertThat(view.progressing().reason()).isEqualTo("Promoting");
  }

  @Test
  void anAbortSaysWhyOnceThenKeepsTheMessageOnRecord() {
    Announcement news = new Announcement("CanaryAborted", "rolled back", true);
    RolloutView now =
        GrayRelease.view(
                GRAY,
                new Abort(state(Phase.ABORTED, 0), "aborted by the user", Optional.of(news)),
                Optional.empty())
            .orElseThrow();
    assertThat(now.status().getMessage())
        .isEqualTo(
            "revision bbb was rolled back: aborted by the user; revision aaa runs all 4 replicas"
                + " until the spec changes");
    assertThat(now.degraded().reason()).isEqualTo("RolloutAborted");

    WebService recorded = withRecordedMessage(now.status().getMessage());
    RolloutView later =
        GrayRelease.view(
                recorded,
                new Abort(state(Phase.ABORTED, 0), "aborted", Optional.empty()),
                Optional.empty())
            .orElseThrow();
    assertThat(later.status().getMessage()).isEqualTo(now.status().getMessage());
  }

  @Test
  void aFinishedReleaseStaysOnRecordWithoutConditions() {
    RolloutView view =
        GrayRelease.view(
                GRAY, new Steady(state(Phase.PROMOTED, 1), Optional.empty()), Optional.empty())
            .orElseThrow();

    assertThat(view.status().getMessage()).isEqualTo("revision bbb was promoted");
    assertThat(view.status().getWeight()).isEqualTo(100);
    assertThat(view.ready()).isNull();
    assertThat(view.progressing()).isNull();
  }

  @Test
  void noViewWithoutAGrayRelease() {
    assertThat(
            GrayRelease.view(
                GRAY, new Steady(RolloutState.NONE, Optional.empty()), Optional.empty()))
        .isEmpty();
  }

  private static WebService withRecordedMessage(String message) {
    WebService ws =
        WebServices.fromYaml(
            "gray",
            "image: x\nreplicas: 4\nports: [{port: 80}]\nrollout: {canary: {steps: [{weight: 25}]}}");
    Rollout r = new Rollout();
    r.setMessage(message);
    WebServiceStatus status = new WebServiceStatus();
    status.setRollout(r);
    ws.setStatus(status);
    return ws;
  }
}
