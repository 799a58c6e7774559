package dev.bosun.web.reconciler;

import dev.bosun.web.v1alpha1.WebService;

/**
 * The state a gray release's analysis keeps per WebService, in memory: the HTTP checks under way
 * ({@link CanarySampler}) and the Prometheus verdicts of the current steps ({@link
 * PrometheusGate}). Both are keyed by the WebService's namespace and name and forgotten when its
 * release (or the WebService) goes.
 */
record CanaryChecks(CanarySampler sampler, PrometheusGate gate) implements AutoCloseable {

  /** The key of {@code ws}'s checks. */
  static String key(WebService ws) {
    return ws.getMetadata().getNamespace() + "/" + ws.getMetadata().getName();
  }

  /** Stops and forgets the checks of {@code ws}. */
  void forget(WebService ws) {
    sampler.forget(key(ws));
    gate.forget(key(ws));
  }

  /** Stops every check: the operator stops. */
  @Override
  public void close() {
    sampler.close();
  }
}
