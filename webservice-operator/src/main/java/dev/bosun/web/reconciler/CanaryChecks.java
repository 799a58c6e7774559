package dev.bosun.web.reconciler;

import dev.bosun.web.v1alpha1.WebService;

/**
 * The state a gray release's analysis keeps per WebService, in memory: the HTTP checks under way
 * ({@link CanarySampler}) and the Prometheus verdicts of the current steps ({@link
 * PrometheusGate}). Both are keyed by the WebService's namespace, name and UID and forgotten when
 * its release (or the WebService) goes.
 */
record CanaryChecks(CanarySampler sampler, PrometheusGate gate) implements AutoCloseable {

  /**
   * The key of {@code ws}'s checks: its namespace, name and UID, so a WebService deleted and
   * created again under its name starts afresh.
   */
  static String key(WebService ws) {
    return ws.getMetadata().getNamespace()
        + "/"
        + ws.getMetadata().getName()
        + "/"
        + ws.getMetadata().getUid();
  }

  /** Stops and forgets the checks of {@code ws} (its release ended or has no analysis). */
  void forget(WebService ws) {
    sampler.forget(key(ws));
    gate.forget(key(ws));
  }

  /** Stops the checks of a deleted {@code ws} for good, even against a reconcile under way. */
  void retire(WebService ws) {
    sampler.retire(key(ws));
    gate.forget(key(ws));
  }

  /** Stops every check: the operator stops. */
  @Override
  public void close() {
    sampler.close();
  }
}
