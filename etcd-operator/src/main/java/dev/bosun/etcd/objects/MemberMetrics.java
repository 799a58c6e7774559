package dev.bosun.etcd.objects;

import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Metrics;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A member's own metrics endpoint ({@code spec.metrics}): etcd serves {@code /metrics} on a
 * separate plain-HTTP listener, so Prometheus needs no client certificate even when the client port
 * demands one. Off by default; etcd then serves {@code /metrics} on its client port only.
 */
public final class MemberMetrics {

  /** The port etcd's metrics listener conventionally uses (kubeadm's too). */
  public static final int DEFAULT_PORT = 2381;

  private MemberMetrics() {}

  /** The metrics port when the endpoint is enabled. */
  public static Optional<Integer> port(EtcdClusterSpec spec) {
    Metrics metrics = spec.getMetrics();
    if (metrics == null || !Boolean.TRUE.equals(metrics.getEnabled())) {
      return Optional.empty();
    }
    return Optional.of(metrics.getPort() == null ? DEFAULT_PORT : metrics.getPort());
  }

  /** etcd's flags for the endpoint, listening at {@code listenUrl}. */
  static List<String> flags(EtcdClusterSpec spec, URI listenUrl) {
    Metrics.Level level =
        spec.getMetrics().getLevel() == null ? Metrics.Level.BASIC : spec.getMetrics().getLevel();
    return List.of(
        "--listen-metrics-urls=" + listenUrl,
        "--metrics=" + level.getValue().toLowerCase(Locale.ROOT));
  }
}
