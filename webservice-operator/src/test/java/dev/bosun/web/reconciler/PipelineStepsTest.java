package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.web.WebServices;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the reconciler's small steps decide: blocks, foreign children, rechecks, news. */
class PipelineStepsTest {

  private static WebService shop() {
    WebService ws = WebServices.webService("shop", "nginx", 2);
    ws.getMetadata().setNamespace("team");
    ws.getMetadata().setUid("uid-shop");
    ws.getMetadata().setGeneration(1L);
    return ws;
  }

  @Test
  void anInvalidSpecIsBlockedWithEveryProblemInTheWebhooksWords() {
    Blocked blocked = Blocked.invalidSpec(List.of("spec.a is wrong", "spec.b too"));

    assertThat(blocked.reason()).isEqualTo("InvalidSpec");
    assertThat(blocked.problem())
        .isEqualTo(AdmissionReviews.PREFIX + "spec.a is wrong; spec.b too");
    assertThat(Blocked.conflict("taken").reason()).isEqualTo("ResourceConflict");
  }

  @Test
  void onlyAnObjectSomeoneElseControlsIsForeign() {
    WebService ws = shop();
    var theirs = new ServiceBuilder().withNewMetadata().withName("shop").endMetadata().build();
    var ours =
        new ServiceBuilder()
            .withNewMetadata()
            .withName("shop")
            .addNewOwnerReference()
            .withApiVersion("web.bosun.dev/v1alpha1")
            .withKind("WebService")
            .withName("shop")
            .withUid("uid-shop")
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .build();

    assertThat(ForeignChildren.foreign(ws, null, "Service")).isEmpty();
    assertThat(ForeignChildren.foreign(ws, ours, "Service")).isEmpty();
    assertThat(ForeignChildren.foreign(ws, theirs, "Service"))
        .contains(
            "Service shop already exists and is not managed by this WebService; rename the"
                + " WebService or delete that Service");
  }

  @Test
  void theEarliestRecheckWins() {
    assertThat(
            Rechecks.earliest(
                Optional.of(Duration.ofSeconds(30)),
                Optional.empty(),
                Optional.of(Duration.ofSeconds(2))))
        .contains(Duration.ofSeconds(2));
    assertThat(Rechecks.earliest(Optional.empty(), Optional.empty())).isEmpty();
  }

  @Test
  void aFirstRolloutIsNoNewsUntilTheWebServiceWasAvailableOrChanged() {
    WebService ws = shop();
    assertThat(Announcements.firstRollout(ws, null)).isTrue();
    assertThat(Announcements.firstRollout(ws, status("False", "RollingOut", "False"))).isTrue();
    assertThat(Announcements.firstRollout(ws, status("False", "RollingOut", "True"))).isFalse();
    assertThat(Announcements.firstRollout(ws, status("True", "Available", "True"))).isFalse();

    ws.getMetadata().setGeneration(2L);
    assertThat(Announcements.firstRollout(ws, status("False", "RollingOut", "False"))).isFalse();
  }

  private static WebServiceStatus status(String ready, String reason, String available) {
    WebServiceStatus status = new WebServiceStatus();
    status.setConditions(
        List.of(
            new ConditionBuilder().withType("Ready").withStatus(ready).withReason(reason).build(),
            new ConditionBuilder()
                .withType("Available")
                .withStatus(available)
                .withReason("X")
                .build()));
    return status;
  }
}
