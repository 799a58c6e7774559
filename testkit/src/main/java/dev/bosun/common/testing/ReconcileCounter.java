package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** JOSDK metrics that count reconciliations, to prove reconciles stay bounded when idle. */
public final class ReconcileCounter implements Metrics {

  private final AtomicInteger reconciles = new AtomicInteger();
  private final Map<String, AtomicInteger> byName = new ConcurrentHashMap<>();

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    reconciles.incrementAndGet();
    byName
        .computeIfAbsent(resource.getMetadata().getName(), n -> new AtomicInteger())
        .incrementAndGet();
  }

  /** Reconciliations started so far. */
  public int count() {
    return reconciles.get();
  }

  /** Reconciliations of resources named {@code name} (in any namespace) started so far. */
  public int count(String name) {
    AtomicInteger n = byName.get(name);
    return n == null ? 0 : n.get();
  }
}
