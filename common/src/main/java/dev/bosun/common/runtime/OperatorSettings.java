package dev.bosun.common.runtime;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How an operator process runs, read from its environment (the Helm charts set these variables).
 *
 * @param name the operator's name: field manager, Event source, lease name and managed-by label
 * @param watchNamespaces namespaces to watch; empty means every namespace
 * @param leaderElection whether to take a Lease before reconciling (on for replicated deployments)
 * @param leaseNamespace where the Lease lives (the operator's own namespace)
 * @param httpPort port of /healthz, /readyz and /metrics; 0 picks a free port, -1 disables it
 * @param reconcileThreads concurrent reconciliations
 * @param leaseDuration how long a Lease holder stays leader without renewing
 */
public record OperatorSettings(
    String name,
    Set<String> watchNamespaces,
    boolean leaderElection,
    Optional<String> leaseNamespace,
    int httpPort,
    int reconcileThreads,
    Duration leaseDuration) {

  public static final String WATCH_NAMESPACES = "BOSUN_WATCH_NAMESPACES";
  public static final String LEADER_ELECTION = "BOSUN_LEADER_ELECTION";
  public static final String LEASE_NAMESPACE = "BOSUN_LEASE_NAMESPACE";
  public static final String HTTP_PORT = "BOSUN_HTTP_PORT";
  public static final String RECONCILE_THREADS = "BOSUN_RECONCILE_THREADS";
  public static final String LEASE_DURATION_SECONDS = "BOSUN_LEASE_DURATION_SECONDS";

  /** Concurrent reconciliations by default (more only adds contention on a busy API server). */
  public static final int DEFAULT_RECONCILE_THREADS = 10;

  public OperatorSettings {
    // The name is also a label value (managed-by): a DNS label of at most 63 characters.
    if (name == null || name.length() > 63 || !name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
      throw new IllegalArgumentException("operator name must be a DNS label: " + name);
    }
    if (leaseDuration.compareTo(Duration.ofSeconds(5)) < 0
        || leaseDuration.compareTo(Duration.ofSeconds(300)) > 0) {
      throw new IllegalArgumentException(
          LEASE_DURATION_SECONDS + " must be 5..300 seconds: " + leaseDuration.toSeconds());
    }
    watchNamespaces = Set.copyOf(watchNamespaces);
    if (leaderElection && leaseNamespace.isEmpty()) {
      throw new IllegalArgumentException(
          LEADER_ELECTION + "=true needs " + LEASE_NAMESPACE + " (the operator's namespace)");
    }
    if (httpPort < -1 || httpPort > 65535) {
      throw new IllegalArgumentException(HTTP_PORT + " must be -1..65535: " + httpPort);
    }
    if (reconcileThreads < 1) {
      throw new IllegalArgumentException(RECONCILE_THREADS + " must be at least 1");
    }
  }

  /** How long a leader keeps trying to renew its Lease before it gives leadership up. */
  public Duration renewDeadline() {
    return leaseDuration.multipliedBy(2).dividedBy(3);
  }

  /**
   * How often the Lease is tried: at most 2 s, and short enough that fabric8's rule (renew deadline
   * greater than the retry period plus its 120 % jitter) holds for every allowed lease duration.
   */
  public Duration leaseRetryPeriod() {
    Duration third = renewDeadline().dividedBy(3);
    return third.compareTo(Duration.ofSeconds(2)) < 0 ? third : Duration.ofSeconds(2);
  }

  /** Settings for a local run: all namespaces, no leader election, a free HTTP port. */
  public static OperatorSettings local(String name) {
    return new OperatorSettings(
        name,
        Set.of(),
        false,
        Optional.empty(),
        0,
        DEFAULT_RECONCILE_THREADS,
        Duration.ofSeconds(15));
  }

  /** Reads the settings from the process environment. */
  public static OperatorSettings fromEnvironment(String name) {
    return fromMap(name, System.getenv());
  }

  /** Reads the settings from a map of variables (the environment, in production). */
  public static OperatorSettings fromMap(String name, Map<String, String> env) {
    Set<String> namespaces =
        Arrays.stream(env.getOrDefault(WATCH_NAMESPACES, "").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toSet());
    Optional<String> leaseNamespace =
        Optional.ofNullable(env.get(LEASE_NAMESPACE)).filter(s -> !s.isBlank());
    return new OperatorSettings(
        name,
        namespaces,
        parseBoolean(env, LEADER_ELECTION, false),
        leaseNamespace,
        parseInt(env, HTTP_PORT, 8080),
        parseInt(env, RECONCILE_THREADS, DEFAULT_RECONCILE_THREADS),
        Duration.ofSeconds(parseInt(env, LEASE_DURATION_SECONDS, 15)));
  }

  // Strict: a typo must not silently turn leader election off in a replicated deployment.
  private static boolean parseBoolean(Map<String, String> env, String key, boolean fallback) {
    String value = env.get(key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false: " + value);
    };
  }

  private static int parseInt(Map<String, String> env, String key, int fallback) {
    String value = env.get(key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number: " + value, e);
    }
  }

  /** The Lease's name. */
  public String leaseName() {
    return name + "-leader";
  }

  /** The same settings with another HTTP port. */
  public OperatorSettings withHttpPort(int port) {
    return new OperatorSettings(
        name,
        watchNamespaces,
        leaderElection,
        leaseNamespace,
        port,
        reconcileThreads,
        leaseDuration);
  }

  /** The same settings watching only the given namespaces. */
  public OperatorSettings watching(Set<String> namespaces) {
    return new OperatorSettings(
        name,
        namespaces,
        leaderElection,
        leaseNamespace,
        httpPort,
        reconcileThreads,
        leaseDuration);
  }
}
