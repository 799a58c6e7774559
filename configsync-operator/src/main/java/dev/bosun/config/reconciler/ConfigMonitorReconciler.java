package dev.bosun.config.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;
import static dev.bosun.config.ConfigSyncOperator.MONITORED_LABEL;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.monitor.RolloutDecision;
import dev.bosun.config.monitor.WorkloadRoller;
import dev.bosun.config.sync.ContentHash;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import dev.bosun.config.v1alpha1.configmonitorstatus.Workloads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
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
    Round r = new Round(cached, context);
    return checkSpec(r).or(() -> hashConfiguration(r)).orElseGet(() -> rollOut(r));
  }

  /** What one reconcile of a monitor has learnt so far, handed from step to step. */
  private static final class Round {
    final ConfigMonitor monitor;
    final Context<ConfigMonitor> context;
    final ConfigMonitorSpec spec;
    final String ns;
    final long generation;
    final ConfigMonitorStatus previous;
    String hash;

    Round(ConfigMonitor monitor, Context<ConfigMonitor> context) {
      this.monitor = monitor;
      this.context = context;
      this.spec = monitor.getSpec();
      this.ns = monitor.getMetadata().getNamespace();
      this.generation = monitor.getMetadata().getGeneration();
      this.previous = monitor.getStatus() == null ? new ConfigMonitorStatus() : monitor.getStatus();
    }
  }

  /** Step 1: a spec naming nothing to watch, or with a broken selector, is InvalidSpec. */
  private Optional<UpdateControl<ConfigMonitor>> checkSpec(Round r) {
    return specProblem(r.spec)
        .map(
            problem ->
                record(
                    r.context,
                    r.monitor,
                    copyOf(r.previous, r.generation),
                    "InvalidSpec",
                    problem));
  }

  /** What is wrong with a monitor's spec, as InvalidSpec says it; empty when nothing is. */
  static Optional<String> specProblem(ConfigMonitorSpec spec) {
    List<String> problems = ConfigSyncValidator.monitorProblems(spec);
    return problems.isEmpty()
        ? Optional.empty()
        : Optional.of(AdmissionReviews.PREFIX + String.join("; ", problems));
  }

  /** Step 2: the hash of all the named configuration; ConfigNotFound while any of it is missing. */
  private Optional<UpdateControl<ConfigMonitor>> hashConfiguration(Round r) {
    ContentHash hash = ContentHash.start();
    List<String> missing = new ArrayList<>();
    for (String name : new TreeSet<>(nonNull(r.spec.getConfigMaps()))) {
      Optional<ConfigMap> cm = observe(r.context, ConfigMap.class, r.ns, name);
      cm.ifPresentOrElse(
          c -> hash.add("ConfigMap/" + name, c.getData()).add("binary", c.getBinaryData()),
          () -> missing.add("ConfigMap " + name));
    }
    for (String name : new TreeSet<>(nonNull(r.spec.getSecrets()))) {
      Optional<Secret> s = observe(r.context, Secret.class, r.ns, name);
      s.ifPresentOrElse(
          c -> hash.add("Secret/" + name, c.getData()), () -> missing.add("Secret " + name));
    }
    if (missing.isEmpty()) {
      r.hash = hash.hex();
      return Optional.empty();
    }
    // Nothing is rolled while the configuration is incomplete. A ConfigMap or Secret created
    // later carries no monitored label yet, so the informers cannot announce it: look again.
    Long observed = r.previous.getObservedGeneration();
    return Optional.of(
        record(
                r.context,
                r.monitor,
                copyOf(r.previous, observed == null ? r.generation : observed),
                "ConfigNotFound",
                notFound(missing, r.ns))
            .rescheduleAfter(MISSING_CONFIG_RECHECK));
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

  /**
   * Step 3: what the hash means (a baseline, a change to wait for, or a roll), written to the
   * status; a look again when the debounce window ends.
   */
  private UpdateControl<ConfigMonitor> rollOut(Round r) {
    Instant now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS);
    RolloutDecision decision = decide(r, now);
    ConfigMonitorStatus status = copyOf(r.previous, r.generation);
    if (decision instanceof RolloutDecision.Roll roll) {
      roll(r.monitor, r.context.getClient(), roll.hash(), now, status);
    }
    Optional<Duration> reschedule = recordWaiting(decision, status);
    UpdateControl<ConfigMonitor> control =
        record(
            r.context,
            r.monitor,
            status,
            null,
            "watching " + describe(r.spec) + ", hash " + status.getConfigHash());
    return reschedule.map(w -> control.rescheduleAfter(w.plusMillis(200))).orElse(control);
  }

  private static RolloutDecision decide(Round r, Instant now) {
    ConfigMonitorStatus previous = r.previous;
    return RolloutDecision.decide(
        r.hash,
        previous.getConfigHash(),
        previous.getObservedGeneration() == null
            || previous.getObservedGeneration() != r.generation,
        previous.getPendingHash(),
        previous.getPendingSince() == null ? null : previous.getPendingSince().toInstant(),
        Duration.ofSeconds(r.spec.getDebounceSeconds()),
        now);
  }

  /**
   * Writes what a decision other than a roll means for the applied and the pending hash (a roll is
   * written by {@link #roll}), and says how long the debounce window still runs, if it does.
   */
  static Optional<Duration> recordWaiting(RolloutDecision decision, ConfigMonitorStatus status) {
    if (decision instanceof RolloutDecision.Baseline b) {
      status.setConfigHash(b.hash());
      status.setPendingHash(null);
      status.setPendingSince(null);
    } else if (decision instanceof RolloutDecision.Unchanged) {
      status.setPendingHash(null);
      status.setPendingSince(null);
    } else if (decision instanceof RolloutDecision.StartWaiting w) {
      status.setPendingHash(w.hash());
      status.setPendingSince(utc(w.since()));
      return Optional.of(w.debounce());
    } else if (decision instanceof RolloutDecision.KeepWaiting k) {
      return Optional.of(k.remaining());
    }
    return Optional.empty();
  }

  /** The object from the informer, or read and labelled so the informer sees it from now on. */
  private <R extends HasMetadata> Optional<R> observe(
      Context<ConfigMonitor> context, Class<R> type, String ns, String name) {
    @SuppressWarnings("unchecked")
    InformerEventSource<R, ConfigMonitor> informer =
        (InformerEventSource<R, ConfigMonitor>)
            context.eventSourceRetriever().getEventSourceFor(type, type.getSimpleName());
    Optional<R> cached = informer.get(new ResourceID(name, ns));
    if (cached.isPresent()) {
      return cached;
    }
    KubernetesClient client = context.getClient();
    R object = client.resources(type).inNamespace(ns).withName(name).get();
    if (object == null) {
      return Optional.empty();
    }
    // A merge patch of one label, as its own update: it never touches the data and no apply by
    // another manager (or by this operator's copies) removes it.
    client
        .resources(type)
        .inNamespace(ns)
        .withName(name)
        .patch(
            new PatchContext.Builder()
                .withPatchType(PatchType.JSON_MERGE)
                .withFieldManager(ConfigSyncOperator.NAME)
                .build(),
            "{\"metadata\":{\"labels\":{\"" + MONITORED_LABEL + "\":\"true\"}}}");
    return Optional.of(object);
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
    Map<String, Workloads> byName = new LinkedHashMap<>();
    nonNull(status.getWorkloads()).forEach(w -> byName.put(w.getKind() + "/" + w.getName(), w));
    for (HasMetadata w : rolled) {
      Workloads entry = new Workloads();
      entry.setKind(w.getKind());
      entry.setName(w.getMetadata().getName());
      entry.setLastRolloutTime(utc(now));
      entry.setConfigHash(hash);
      byName.put(w.getKind() + "/" + w.getMetadata().getName(), entry);
      events.normal(
          w,
          "ConfigChanged",
          "ConfigMonitor " + monitor.getMetadata().getName() + " rolled it: configuration changed");
    }
    status.setWorkloads(new ArrayList<>(byName.values()));
    status.setConfigHash(hash);
    status.setPendingHash(null);
    status.setPendingSince(null);
    status.setLastRolloutTime(utc(now));
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
    List<io.fabric8.kubernetes.api.model.Condition> before =
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

  private static ConfigMonitorStatus copyOf(ConfigMonitorStatus previous, long generation) {
    ConfigMonitorStatus status = new ConfigMonitorStatus();
    status.setObservedGeneration(generation);
    status.setConfigHash(previous.getConfigHash());
    status.setPendingHash(previous.getPendingHash());
    status.setPendingSince(previous.getPendingSince());
    status.setLastRolloutTime(previous.getLastRolloutTime());
    status.setWorkloads(previous.getWorkloads());
    return status;
  }

  private static String describe(ConfigMonitorSpec spec) {
    List<String> parts = new ArrayList<>();
    nonNull(spec.getConfigMaps()).forEach(n -> parts.add("ConfigMap " + n));
    nonNull(spec.getSecrets()).forEach(n -> parts.add("Secret " + n));
    return String.join(", ", parts);
  }

  private static ZonedDateTime utc(Instant instant) {
    return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  private static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }
}
