package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** JOSDK metrics that count reconciliations, to prove reconciles stay bounded when idle. */
public final class ReconcileCounter implements Metrics {

  private final AtomicInteger reconciles = new AtomicInteger();

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    reconciles.incrementAndGet();
  }

  /** Reconciliations started so far. */
  public int count() {
    return reconciles.get();
  }
}
