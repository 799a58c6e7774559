package dev.bosun.common.runtime;

import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bootstrap every operator's {@code Main} uses: a JOSDK {@link Operator} with the watched
 * namespaces, one field manager, optional leader election on a Lease, Prometheus metrics, and an
 * HTTP endpoint for health, readiness and metrics; stopped gracefully on SIGTERM.
 */
public final class OperatorRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OperatorRuntime.class);

  private final OperatorSettings settings;
  private final KubernetesClient client;
  private final Operator operator;
  private final PrometheusMeterRegistry registry;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Map<String, HttpHandler> routes = new LinkedHashMap<>();
  private volatile boolean closing;
  private HealthServer health;
  private final List<AutoCloseable> closeAfterStop = new CopyOnWriteArrayList<>();
  private final List<BooleanSupplier> readyOnlyWhen = new CopyOnWriteArrayList<>();

  /** An operator runtime with JOSDK's metrics published to Prometheus. */
  public OperatorRuntime(OperatorSettings settings, KubernetesClient client) {
    this(settings, client, null);
  }

  /**
   * An operator runtime; {@code extraMetrics} (tests use it to count reconciles) receives JOSDK's
   * callbacks instead of Prometheus when given.
   */
  public OperatorRuntime(OperatorSettings settings, KubernetesClient client, Metrics extraMetrics) {
    this.settings = settings;
    this.client = client;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    Metrics metrics =
        extraMetrics != null ? extraMetrics : MicrometerMetrics.withoutPerResourceMetrics(registry);
    this.operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withMetrics(metrics)
                  .withConcurrentReconciliationThreads(settings.reconcileThreads())
                  .withCloseClientOnStop(false)
                  // Lets a status this operator wrote replace an older copy in the primary cache
                  // before the watch delivers it (CachedStatusWrites).
                  .withParseResourceVersions(true)
                  .withReconciliationTerminationTimeout(Duration.ofSeconds(10));
              if (settings.leaderElection()) {
                // JOSDK exits the JVM whenever leadership stops, even on a graceful stop; exit only
                // when the Lease is lost while running, so two leaders can never reconcile at once.
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        settings.leaseName(),
                        settings.leaseNamespace().orElseThrow(),
                        settings.leaseDuration(),
                        settings.renewDeadline(),
                        settings.leaseRetryPeriod(),
                        null,
                        new LeaderCallbacks(
                            () -> LOG.info("{} is now the leader", settings.name()),
                            this::lostLeadership,
                            leader -> LOG.info("leader of {} is {}", settings.name(), leader)),
                        false));
              }
            });
  }

  private void lostLeadership() {
    if (closing) {
      return;
    }
    LOG.error(
        "{} lost its Lease while running: exiting so that another instance takes over",
        settings.name());
    System.exit(1);
  }

  /** Registers a reconciler with the operator's watched namespaces and field manager. */
  public <P extends HasMetadata> OperatorRuntime register(Reconciler<P> reconciler) {
    var controller =
        operator.register(
            reconciler,
            o -> {
              o.withFieldManager(settings.name());
              if (!settings.watchNamespaces().isEmpty()) {
                o.settingNamespaces(settings.watchNamespaces());
              }
            });
    // Watch events of the primary kind are then read straight into its class. Unregistered, fabric8
    // reads each event into a generic resource and converts that: every event parsed twice.
    client
        .getKubernetesSerialization()
        .registerKubernetesResource(controller.getConfiguration().getResourceClass());
    return this;
  }

  /**
   * Serves {@code handler} for requests under {@code path} on the operator's HTTP port, next to
   * /healthz, /readyz and /metrics (nothing is served when the port is disabled). Every replica
   * serves it, leader or not: a handler must not rely on what only the leader knows. Call before
   * {@link #start()}.
   */
  public OperatorRuntime route(String path, HttpHandler handler) {
    if (health != null) {
      throw new IllegalStateException("routes are added before the runtime starts");
    }
    if (!path.startsWith("/") || HealthServer.OWN_PATHS.contains(path)) {
      throw new IllegalArgumentException("not a path an operator may serve: " + path);
    }
    if (routes.putIfAbsent(path, handler) != null) {
      throw new IllegalArgumentException("path " + path + " is already served");
    }
    return this;
  }

  /** Starts the health endpoint, then the operator (which waits for its informers to sync). */
  public OperatorRuntime start() {
    if (settings.httpPort() >= 0) {
      try {
        health =
            new HealthServer(
                settings.httpPort(),
                () -> stopped.getCount() > 0,
                this::isReady,
                registry::scrape,
                routes);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot serve health on port " + settings.httpPort(), e);
      }
    }
    operator.start();
    LOG.info(
        "{} started: namespaces={}, leaderElection={}, http port={}",
        settings.name(),
        settings.watchNamespaces().isEmpty() ? "all" : settings.watchNamespaces(),
        settings.leaderElection(),
        httpPort());
    return this;
  }

  private boolean isReady() {
    return operator.getRuntimeInfo().isStarted()
        && operator.getRuntimeInfo().allEventSourcesAreHealthy()
        && readyOnlyWhen.stream().allMatch(BooleanSupplier::getAsBoolean);
  }

  /**
   * Reports ready (/readyz) only while {@code condition} holds too, such as a service every replica
   * offers (the admission webhook) that cannot be used before it is set up.
   */
  public OperatorRuntime readyOnlyWhen(BooleanSupplier condition) {
    readyOnlyWhen.add(condition);
    return this;
  }

  /** The port /healthz, /readyz, /metrics and the added routes answer on, or -1 when disabled. */
  public int httpPort() {
    return health == null ? -1 : health.port();
  }

  /** The JOSDK operator, for tests and tools. */
  public Operator operator() {
    return operator;
  }

  /**
   * The main method of a deployed operator: a client for the current kubeconfig or ServiceAccount,
   * the operator {@code factory} makes with it, started and run until SIGTERM.
   */
  public static void runDeployed(Function<KubernetesClient, OperatorRuntime> factory)
      throws InterruptedException {
    AsyncPool.ensureTwoThreads();
    try (KubernetesClient client = new KubernetesClientBuilder().build();
        OperatorRuntime runtime = factory.apply(client)) {
      runtime.start().runUntilShutdown();
    }
  }

  /**
   * Closes {@code resource} when the operator stops, after its reconcilers: background work (a
   * copy, a load) ends with the process that started it, as it would in a container.
   */
  public OperatorRuntime onClose(AutoCloseable resource) {
    closeAfterStop.add(resource);
    return this;
  }

  /** Blocks until SIGTERM or {@link #close()}: the main thread of a deployed operator. */
  public void runUntilShutdown() throws InterruptedException {
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "shutdown"));
    stopped.await();
  }

  @Override
  public void close() {
    if (stopped.getCount() == 0) {
      return;
    }
    closing = true;
    LOG.info("{} stopping", settings.name());
    try {
      operator.stop();
    } finally {
      for (AutoCloseable r : closeAfterStop) {
        try {
          r.close();
        } catch (Exception e) {
          LOG.warn("{}: closing {} failed", settings.name(), r, e);
        }
      }
      if (health != null) {
        health.close();
      }
      stopped.countDown();
    }
  }
}
