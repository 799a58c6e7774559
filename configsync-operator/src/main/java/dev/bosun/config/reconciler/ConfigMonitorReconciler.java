package dev.bosun.config.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;
import static dev.bosun.config.ConfigSyncOperator.MONITORED_LABEL;
import static dev.bosun.config.monitor.MonitorStatuses.copyOf;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.monitor.MonitorStatuses;
import dev.bosun.config.monitor.RolloutDecision;
import dev.bosun.config.monitor.WorkloadRoller;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls workloads when the ConfigMaps or Secrets they use change. The applied hash lives in the
 * monitor's status and in each workload's pod template, so restarts and leader changes never roll
 * anything; a burst of edits within the debounce window causes one rollout.
 */
@ControllerConfiguration(fieldManager = ConfigSyncOperator.NAME)
public class ConfigMonitorReconciler implements Reconciler<ConfigMonitor> {

  private static final Logger LOG = LoggerFactory.getLogger(ConfigMonitorReconciler.class);
  private static final String BY_CONFIG = "by-config";
  private static final String READY = "Ready";
  private static final String DEGRADED = "Degraded";

  /** How often a monitor whose configuration does not exist yet looks for it again. */
  static final Duration MISSING_CONFIG_RECHECK = Duration.ofSeconds(5);

  private final EventRecorder events;
  private final Clock clock;

  public ConfigMonitorReconciler(EventRecorder events, Clock clock) {
    this.events = events;
    this.clock = clock;
  }

  private static String key(String kind, String namespace, String name) {
    return kind + "/" + namespace + "/" + name;
  }

  @Override
  public List<EventSource<?, ConfigMonitor>> prepareEventSources(
      EventSourceContext<ConfigMonitor> context) {
    context
        .getPrimaryCache()
        .addIndexer(
            BY_CONFIG,
            m -> {
              List<String> keys = new ArrayList<>();
              String ns = m.getMetadata().getNamespace();
              nonNull(m.getSpec().getConfigMaps()).forEach(n -> keys.add(key("ConfigMap", ns, n)));
              nonNull(m.getSpec().getSecrets()).forEach(n -> keys.add(key("Secret", ns, n)));
              return keys;
            });
    // Only ConfigMaps and Secrets a monitor names are watched: the operator labels them.
    return List.of(
        new InformerEventSource<>(watched(context, ConfigMap.class), context),
        new InformerEventSource<>(watched(context, Secret.class), context));
  }

  private static <R extends HasMetadata> InformerEventSourceConfiguration<R> watched(
      EventSourceContext<ConfigMonitor> context, Class<R> type) {
    return InformerEventSourceConfiguration.from(type, ConfigMonitor.class)
        .withName(type.getSimpleName())
        .withLabelSelector(MONITORED_LABEL + "=true")
        .withSecondaryToPrimaryMapper(
            o ->
                context
                    .getPrimaryCache()
                    .byIndex(
                        BY_CONFIG,
                        key(
                            type.getSimpleName(),
                            o.getMetadata().getNamespace(),
                            o.getMetadata().getName()))
                    .stream()
                    .map(ResourceID::fromResource)
                    .collect(Collectors.toSet()))
        .build();
  }

  @Override
  public UpdateControl<ConfigMonitor> reconcile(
      ConfigMonitor cached, Context<ConfigMonitor> context) {
    // The status holds the applied hash and the pending change: a stale copy would roll twice.
    // Every status write goes through CachedStatusWrites, so this copy is never older than the
    // last one written.
    ConfigMonitorSpec spec = cached.getSpec();
    Optional<String> problem = specProblem(spec);
    if (problem.isPresent()) {
      return invalidSpec(cached, problem.get(), context);
    }
    MonitoredConfiguration config =
        MonitoredConfiguration.read(spec, cached.getMetadata().getNamespace(), context);
    if (!config.missing().isEmpty()) {
      return configNotFound(cached, config.missing(), context);
    }
    Instant now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS);
    RolloutDecision decision = decide(cached, config.hash(), now);
    return carryOut(cached, decision, now, context);
  }

  /** What is wrong with a monitor's spec, as InvalidSpec says it; empty when nothing is. */
  static Optional<String> specProblem(ConfigMonitorSpec spec) {
    List<String> problems = ConfigSyncValidator.monitorProblems(spec);
    return problems.isEmpty()
        ? Optional.empty()
        : Optional.of(AdmissionReviews.PREFIX + String.join("; ", problems));
  }

  /** A spec naming nothing to watch, or with a broken selector: nothing is rolled. */
  private UpdateControl<ConfigMonitor> invalidSpec(
      ConfigMonitor monitor, String problem, Context<ConfigMonitor> context) {
    return record(
        context, monitor, copyOf(previous(monitor), generation(monitor)), "InvalidSpec", problem);
  }

  /**
   * Nothing is rolled while the configuration is incomplete. A ConfigMap or Secret created later
   * carries no monitored label yet, so the informers cannot announce it: look again.
   */
  private UpdateControl<ConfigMonitor> configNotFound(
      ConfigMonitor monitor, List<String> missing, Context<ConfigMonitor> context) {
    Long observed = previous(monitor).getObservedGeneration();
    return record(
            context,
            monitor,
            copyOf(previous(monitor), observed == null ? generation(monitor) : observed),
            "ConfigNotFound",
            notFound(missing, monitor.getMetadata().getNamespace()))
        .rescheduleAfter(MISSING_CONFIG_RECHECK);
  }

  /** The ConfigNotFound sentence. */
  static String notFound(List<String> missing, String ns) {
    return String.join(", ", missing)
        + " not found in namespace "
        + ns
        + " (checked again every "
        + MISSING_CONFIG_RECHECK.toSeconds()
        + " s)";
  }

  /** What the hash means: a baseline, a change to wait for, or a roll. */
  private static RolloutDecision decide(ConfigMonitor monitor, String hash, Instant now) {
    ConfigMonitorStatus previous = previous(monitor);
    return RolloutDecision.decide(
        hash,
        previous.getConfigHash(),
        previous.getObservedGeneration() == null
            || previous.getObservedGeneration() != generation(monitor),
        previous.getPendingHash(),
        previous.getPendingSince() == null ? null : previous.getPendingSince().toInstant(),
        Duration.ofSeconds(monitor.getSpec().getDebounceSeconds()),
        now);
  }

  /** The decision carried out and written to the status; a look again when the window ends. */
  private UpdateControl<ConfigMonitor> carryOut(
      ConfigMonitor monitor,
      RolloutDecision decision,
      Instant now,
      Context<ConfigMonitor> context) {
    ConfigMonitorStatus status = copyOf(previous(monitor), generation(monitor));
    if (decision instanceof RolloutDecision.Roll roll) {
      roll(monitor, context.getClient(), roll.hash(), now, status);
    }
    Optional<Duration> reschedule = recordWaiting(decision, status);
    UpdateControl<ConfigMonitor> control =
        record(
            context,
            monitor,
            status,
            null,
            "watching " + describe(monitor.getSpec()) + ", hash " + status.getConfigHash());
    return reschedule.map(w -> control.rescheduleAfter(w.plusMillis(200))).orElse(control);
  }

  /**
   * Writes what a decision other than a roll means for the applied and the pending hash, and says
   * how long the debounce window still runs, if it does.
   */
  static Optional<Duration> recordWaiting(RolloutDecision decision, ConfigMonitorStatus status) {
    return MonitorStatuses.recordWaiting(decision, status);
  }

  private void roll(
      ConfigMonitor monitor,
      KubernetesClient client,
      String hash,
      Instant now,
      ConfigMonitorStatus status) {
    boolean deletePods = monitor.getSpec().getStrategy() == ConfigMonitorSpec.Strategy.DELETEPODS;
    List<HasMetadata> rolled =
        new WorkloadRoller(client)
            .roll(
                monitor.getMetadata().getNamespace(),
                monitor.getSpec().getSelector(),
                deletePods,
                hash);
    for (HasMetadata w : rolled) {
      events.normal(
          w,
          "ConfigChanged",
          "ConfigMonitor " + monitor.getMetadata().getName() + " rolled it: configuration changed");
    }
    MonitorStatuses.rolled(status, rolled, hash, now);
    String names =
        rolled.isEmpty()
            ? "no workload matches the selector"
            : rolled.stream()
                .map(w -> w.getKind() + "/" + w.getMetadata().getName())
                .collect(Collectors.joining(", "));
    LOG.info("configuration changed (hash {}): rolled {}", hash, names);
    events.normal(monitor, "RolledOut", "configuration changed (hash " + hash + "): " + names);
  }

  private UpdateControl<ConfigMonitor> record(
      Context<ConfigMonitor> context,
      ConfigMonitor monitor,
      ConfigMonitorStatus status,
      String problem,
      String message) {
    List<DesiredCondition> desired =
        problem == null
            ? List.of(isTrue(READY, "Watching", message), isFalse(DEGRADED, "AsExpected", message))
            : List.of(isFalse(READY, problem, message), isTrue(DEGRADED, problem, message));
    List<Condition> before =
        monitor.getStatus() == null ? null : monitor.getStatus().getConditions();
    status.setConditions(
        Conditions.merge(before, desired, monitor.getMetadata().getGeneration(), clock));
    boolean wasProblem =
        Conditions.find(before, DEGRADED).map(c -> "True".equals(c.getStatus())).orElse(false);
    if (problem != null && !wasProblem) {
      events.warning(monitor, problem, message);
    }
    CachedStatusWrites.applyIfChanged(monitor, status, context);
    return UpdateControl.noUpdate();
  }

  private static ConfigMonitorStatus previous(ConfigMonitor monitor) {
    return monitor.getStatus() == null ? new ConfigMonitorStatus() : monitor.getStatus();
  }

  private static long generation(ConfigMonitor monitor) {
    return monitor.getMetadata().getGeneration();
  }

  private static String describe(ConfigMonitorSpec spec) {
    List<String> parts = new ArrayList<>();
    nonNull(spec.getConfigMaps()).forEach(n -> parts.add("ConfigMap " + n));
    nonNull(spec.getSecrets()).forEach(n -> parts.add("Secret " + n));
    return String.join(", ", parts);
  }

  private static <T> List<T> nonNull(List<T> list) {
    return MonitoredConfiguration.nonNull(list);
  }
}
