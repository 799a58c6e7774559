package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.WebServices;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.rollout.canary.analysis.Prometheus;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A WebService's canary checks and verdicts go when it does, and no other's. */
class CanaryChecksTest {

  private static WebService named(String name) {
    WebService ws = WebServices.webService(name, "nginx", 2);
    ws.getMetadata().setNamespace("team");
    return ws;
  }

  @Test
  void forgettingAWebServiceStopsItsChecksAndDropsItsVerdicts() {
    // Pods without an address: each check is a failed sample, no request leaves the test.
    try (CanaryChecks checks =
        new CanaryChecks(new CanarySampler(p -> Optional.empty()), new PrometheusGate())) {
      Prometheus unreachable = new Prometheus();
      unreachable.setUrl("http://127.0.0.1:1/");
      unreachable.setQuery("up");
      unreachable.setMaxValue("1");
      WebService shop = named("shop");
      WebService cart = named("cart");
      for (WebService ws : List.of(shop, cart)) {
        String key = CanaryChecks.key(ws);
        checks
            .sampler()
            .samples(
                key,
                new CanarySampler.Target(
                    "bbb@0",
                    List.of(new Pod()),
                    List.of(new Pod()),
                    "/",
                    8080,
                    5,
                    10,
                    Duration.ofSeconds(1)));
        checks.gate().verdict(key, "bbb@0", ws, unreachable);
      }

      checks.forget(shop);

      assertThat(checks.sampler().tracks(CanaryChecks.key(shop))).isFalse();
      assertThat(checks.gate().remembers(CanaryChecks.key(shop))).isFalse();
      assertThat(checks.sampler().tracks(CanaryChecks.key(cart))).isTrue();
      assertThat(checks.gate().remembers(CanaryChecks.key(cart))).isTrue();
    }
  }

  @Test
  void aDeletedWebServicesChecksNeverStartAgainButItsNamesakesDo() {
    try (CanaryChecks checks =
        new CanaryChecks(new CanarySampler(p -> Optional.empty()), new PrometheusGate())) {
      WebService shop = named("shop");
      shop.getMetadata().setUid("uid-1");
      checks.sampler().samples(CanaryChecks.key(shop), target());

      checks.retire(shop);
      // A reconcile that read the WebService before its deletion asks for the step's samples.
      var late = checks.sampler().samples(CanaryChecks.key(shop), target());

      assertThat(late.canary()).isEmpty();
      assertThat(checks.sampler().tracks(CanaryChecks.key(shop))).isFalse();
      WebService again = named("shop");
      again.getMetadata().setUid("uid-2");
      checks.sampler().samples(CanaryChecks.key(again), target());
      assertThat(checks.sampler().tracks(CanaryChecks.key(again))).isTrue();
    }
  }

  private static CanarySampler.Target target() {
    return new CanarySampler.Target(
        "bbb@0", List.of(new Pod()), List.of(new Pod()), "/", 8080, 5, 10, Duration.ofSeconds(1));
  }
}
