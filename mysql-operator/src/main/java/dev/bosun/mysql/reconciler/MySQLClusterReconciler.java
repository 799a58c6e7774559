package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.dependent.Applier;
import dev.bosun.mysql.dependent.ClusterNames;
import dev.bosun.mysql.dependent.ClusterObjects;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.Addressing;
import dev.bosun.mysql.topology.InstanceState;
import dev.bosun.mysql.topology.PromotionIntent;
import dev.bosun.mysql.topology.ScaleDown;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import dev.bosun.mysql.workload.Credentials;
import dev.bosun.mysql.workload.InstanceException;
import dev.bosun.mysql.workload.RecordSink;
import dev.bosun.mysql.workload.Restorer;
import dev.bosun.mysql.workload.TopologyController;
import dev.bosun.mysql.workload.TopologyRecord;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a MySQLCluster: validate, make sure the Secrets exist, run one round of the
 * replication loop (observe every instance over JDBC, plan one step, execute it), apply the
 * Kubernetes objects, move the role labels, and record the status only when it changed. The round
 * repeats every poll interval: that is the health check.
 */
@ControllerConfiguration(fieldManager = MySQLOperator.NAME)
public class MySQLClusterReconciler implements Reconciler<MySQLCluster> {

  static final String INVALID_SPEC = "InvalidSpec";
  private static final Logger LOG = LoggerFactory.getLogger(MySQLClusterReconciler.class);
  private static final PatchContext MERGE =
      new PatchContext.Builder()
          .withPatchType(PatchType.JSON_MERGE)
          .withFieldManager(MySQLOperator.NAME)
          .build();

  private final EventRecorder events;
  private final Addressing addressing;
  private final Duration pollInterval;
  private final Duration sqlTimeout;
  private final Clock clock;
  private final ClusterStatusBuilder statusBuilder;
  private final BiFunction<MySQLCluster, ClusterModel, Restorer> restorers;
  private final Map<String, Controller> controllers = new ConcurrentHashMap<>();
  private final Map<String, String> upgradeSwitchovers = new ConcurrentHashMap<>();
  private final SecretLookups secretLookups = new SecretLookups();

  private record Controller(Credentials credentials, TopologyController controller) {}

  /**
   * A reconciler; {@code addressing} says where each pod's server answers and {@code restorers}
   * gives the loader of a cluster's fromBackup.
   */
  public MySQLClusterReconciler(
      EventRecorder events,
      Addressing addressing,
      Duration pollInterval,
      Duration sqlTimeout,
      Clock clock,
      BiFunction<MySQLCluster, ClusterModel, Restorer> restorers) {
    this.events = events;
    this.addressing = addressing;
    this.pollInterval = pollInterval;
    this.sqlTimeout = sqlTimeout;
    this.clock = clock;
    this.statusBuilder = new ClusterStatusBuilder(clock);
    this.restorers = restorers;
  }

  @Override
  public List<EventSource<?, MySQLCluster>> prepareEventSources(
      EventSourceContext<MySQLCluster> context) {
    // Everything the operator reads about its own objects comes from these caches: a converged
    // cluster costs no API request between its health rounds.
    String managed = MySQLOperator.MANAGED_SELECTOR;
    return List.of(
        ChildInformers.of(Pod.class, MySQLCluster.class, managed, context),
        ChildInformers.of(StatefulSet.class, MySQLCluster.class, managed, context),
        ChildInformers.of(Service.class, MySQLCluster.class, managed, context),
        ChildInformers.of(ConfigMap.class, MySQLCluster.class, managed, context),
        ChildInformers.of(Secret.class, MySQLCluster.class, managed, context),
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            MySQLCluster.class,
            managed,
            context));
  }

  @Override
  public UpdateControl<MySQLCluster> reconcile(MySQLCluster cached, Context<MySQLCluster> context) {
    KubernetesClient client = context.getClient();
    // The status holds the topology record (primary, promotion point, errant members). Every
    // write of it goes through CachedStatusWrites, so the primary JOSDK hands over is never older
    // than the last failover's write: no GET is needed to decide on the stored record.
    MySQLCluster c = cached;
    ClusterModel m = ClusterModel.of(c);
    MySQLClusterStatus previous = c.getStatus();

    List<String> problems = ClusterValidator.validate(m, previous);
    String invalid = problems.isEmpty() ? null : "invalid spec: " + String.join("; ", problems);
    if (invalid != null && ClusterValidator.nameProblem(m.name()).isPresent()) {
      // No child can carry this name and a name never changes: create nothing, not even Secrets.
      return block(context, c, m, INVALID_SPEC, invalid, false);
    }
    ChildCache<MySQLCluster> cache = new ChildCache<>(context);
    ClusterSecrets.Found secrets = secretLookups.ensure(client, cache, c);
    StatefulSet liveSts = cache.named(StatefulSet.class, m.name()).orElse(null);
    int liveReplicas =
        liveSts == null || liveSts.getSpec().getReplicas() == null
            ? 0
            : liveSts.getSpec().getReplicas();
    // An invalid spec or a Secret problem holds back every change the spec asks for, never the
    // health round: a failover must not wait until a person fixes an unrelated field.
    boolean instancesExist = liveSts != null;
    if (secrets.credentials() == null || (invalid != null && !instancesExist)) {
      return invalid != null
          ? block(context, c, m, INVALID_SPEC, invalid, false)
          : block(context, c, m, secrets.problemReason(), secrets.problem(), true);
    }
    String blockReason = invalid != null ? INVALID_SPEC : secrets.problemReason();
    String blockMessage = invalid != null ? invalid : secrets.problem();
    TopologyRecord record = record(previous, m);
    int primaryOrdinal = record.primary() == null ? -1 : ordinal(record.primary());
    // While blocked, the running cluster is kept as it is: its size, no switchover.
    int desiredInstances = blockReason == null ? m.replicas() : Math.max(1, liveReplicas);
    int instances = Math.max(Math.max(desiredInstances, primaryOrdinal + 1), liveReplicas);

    Map<String, Address> addresses = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      String pod = ClusterNames.pod(c, i);
      addresses.put(pod, addressing.of(m.namespace(), m.name(), pod, m.port()));
    }
    TopologyController controller = controller(c, m, secrets.credentials());
    TopologyController.Tick tick =
        controller.tick(
            new TopologyController.Desired(
                desiredInstances,
                m.failoverEnabled(),
                m.failoverAfter(),
                blockReason != null
                    ? null
                    : m.switchoverTarget() != null
                        ? m.switchoverTarget()
                        : upgradeSwitchovers.get(c.getMetadata().getUid()),
                m.semiSyncTimeoutMillis()),
            record,
            addresses,
            knownErrant(previous),
            restorers.apply(c, m),
            statusSink(context, c));
    report(c, m, tick);
    if (blockReason != null) {
      // The role labels still follow the primary, so the Services reach the one after a failover.
      labelRoles(client, cache, c, tick, addresses);
      return blockedAfterRound(context, c, m, tick, addresses, blockReason, blockMessage);
    }

    // Scale changes wait while the primary is missing: removing a pod then could remove the
    // only copy of an acknowledged commit.
    boolean primaryMissing = primaryUnavailable(tick);
    String deferred = null;
    int stsReplicas =
        Math.max(
            m.replicas(),
            tick.record().primary() == null ? 0 : ordinal(tick.record().primary()) + 1);
    if (primaryMissing && liveSts != null && stsReplicas != liveReplicas) {
      deferred =
          "spec.replicas is "
              + m.replicas()
              + " but the change waits until the cluster has a primary again";
      stsReplicas = liveReplicas;
    }
    String holdBack =
        liveSts != null && stsReplicas < liveReplicas
            ? ScaleDown.holdBack(tick.observed(), stsReplicas, controller.dialect().gtids())
            : null;
    if (holdBack != null) {
      deferred = holdBack;
      stsReplicas = liveReplicas;
    }
    labelRoles(client, cache, c, tick, addresses);
    try {
      Applier applier = new Applier(client, cache);
      applier.apply(c, ClusterObjects.config(c, m));
      applier.apply(c, ClusterObjects.headless(c, m));
      applier.apply(c, ClusterObjects.roleService(c, m, MySQLOperator.PRIMARY));
      applier.apply(c, ClusterObjects.roleService(c, m, MySQLOperator.REPLICA));
      applier.apply(c, ClusterObjects.statefulSet(c, m, stsReplicas));
      DisruptionBudget budget = ClusterObjects.disruptionBudget(c);
      PodDisruptionBudgets.ensure(
          client,
          c,
          budget,
          MySQLOperator.NAME,
          cache.named(GenericKubernetesResource.class, budget.name()));
    } catch (Applier.ForeignObjectException e) {
      return blockedAfterRound(
          context,
          c,
          m,
          tick,
          addresses,
          "ResourceConflict",
          HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH));
    }
    rollingUpgrade(client, cache, c, m, tick, addresses);

    MySQLClusterStatus status = statusBuilder.build(c, m, tick, addresses, deferred);
    announce(c, previous, status);
    CachedStatusWrites.applyIfChanged(c, status, context);
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(pollInterval);
  }

  private void report(MySQLCluster c, ClusterModel m, TopologyController.Tick tick) {
    if (tick.error() != null) {
      LOG.warn("{}/{}: {}", m.namespace(), m.name(), tick.error());
    }
    if (tick.outcome().hasEvent()) {
      LOG.info(
          "{}/{}: {}: {}",
          m.namespace(),
          m.name(),
          tick.outcome().reason(),
          tick.outcome().message());
      events.record(
          c,
          "Warning".equals(tick.outcome().eventType())
              ? EventRecorder.Type.Warning
              : EventRecorder.Type.Normal,
          tick.outcome().reason(),
          tick.outcome().message());
    }
  }

  /**
   * The status of a round that ran while the spec, a Secret or a foreign object blocks the rest:
   * one Warning per new block, and the next health round after the poll interval.
   */
  private UpdateControl<MySQLCluster> blockedAfterRound(
      Context<MySQLCluster> context,
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses,
      String reason,
      String message) {
    warnOnce(c, m, reason, message);
    MySQLClusterStatus status =
        statusBuilder.blockedAfterRound(c, m, tick, addresses, reason, message);
    CachedStatusWrites.applyIfChanged(c, status, context);
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(pollInterval);
  }

  private void warnOnce(MySQLCluster c, ClusterModel m, String reason, String message) {
    boolean changed =
        c.getStatus() == null
            || !Conditions.find(c.getStatus().getConditions(), ClusterStatusBuilder.READY)
                .map(r -> reason.equals(r.getReason()) && message.equals(r.getMessage()))
                .orElse(false);
    if (changed) {
      LOG.warn("{}/{}: {}: {}", m.namespace(), m.name(), reason, message);
      events.warning(c, reason, message);
    }
  }

  /** Whether the cluster has a recorded primary that does not take writes right now. */
  private static boolean primaryUnavailable(TopologyController.Tick tick) {
    String primary = tick.record().primary();
    return primary != null
        && tick.observed().stream().noneMatch(i -> i.name().equals(primary) && i.writable());
  }

  private TopologyController controller(MySQLCluster c, ClusterModel m, Credentials creds) {
    String key = c.getMetadata().getUid();
    Controller existing = controllers.get(key);
    if (existing != null && existing.credentials().equals(creds)) {
      return existing.controller();
    }
    Controller fresh =
        new Controller(
            creds,
            new TopologyController(SqlDialect.of(m.flavour()), creds, sqlTimeout, clock, 30));
    controllers.put(key, fresh);
    return fresh.controller();
  }

  /** The topology history the status holds. */
  static TopologyRecord record(MySQLClusterStatus s, ClusterModel m) {
    if (s == null) {
      return new TopologyRecord(
          null,
          null,
          null,
          null,
          m.fromBackup() != null ? TopologyRecord.RESTORE_PENDING : null,
          null);
    }
    var intent = s.getPromotionIntent();
    return new TopologyRecord(
        s.getPrimary(),
        s.getPreviousPrimary(),
        s.getPromotionGtid(),
        s.getLastFailoverTime() == null ? null : s.getLastFailoverTime().toInstant(),
        s.getRestoredFrom() == null && s.getPrimary() == null && m.fromBackup() != null
            ? TopologyRecord.RESTORE_PENDING
            : s.getRestoredFrom(),
        intent == null || intent.getCandidate() == null
            ? null
            : new PromotionIntent(
                intent.getCandidate(),
                intent.getFrom(),
                intent.getPoint() == null ? "" : intent.getPoint()));
  }

  /**
   * Stores a record in the cluster's status at once, before the executor acts on it (a promotion
   * intent, a started restore). Failing to store it stops the action.
   */
  private static RecordSink statusSink(Context<MySQLCluster> context, MySQLCluster c) {
    return rec -> {
      try {
        // One merge patch of the record's fields, no read first: this write sits between a
        // candidate catching up and its promotion.
        MySQLCluster written =
            context
                .getClient()
                .resources(MySQLCluster.class)
                .inNamespace(c.getMetadata().getNamespace())
                .withName(c.getMetadata().getName())
                .subresource("status")
                .patch(MERGE, RecordPatch.of(rec));
        CachedStatusWrites.remember(context, written, c);
      } catch (KubernetesClientException e) {
        throw new InstanceException(
            "could not record the next topology step in status (HTTP " + e.getCode() + ")", e);
      }
    };
  }

  private static Set<String> knownErrant(MySQLClusterStatus s) {
    Set<String> errant = new TreeSet<>();
    if (s != null && s.getInstances() != null) {
      for (Instances i : s.getInstances()) {
        if (Boolean.TRUE.equals(i.getErrant())) {
          errant.add(i.getName());
        }
      }
    }
    return errant;
  }

  static int ordinal(String pod) {
    return Integer.parseInt(pod.substring(pod.lastIndexOf('-') + 1));
  }

  /**
   * One move of a rolling upgrade when the cluster is steady and healthy: replicas first, the
   * primary last after a switchover (spec.switchover.target, when set, wins).
   */
  private void rollingUpgrade(
      KubernetesClient client,
      ChildCache<MySQLCluster> cache,
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses) {
    String uid = c.getMetadata().getUid();
    String primary = tick.record().primary();
    if (upgradeSwitchovers.containsKey(uid) && upgradeSwitchovers.get(uid).equals(primary)) {
      upgradeSwitchovers.remove(uid);
    }
    if (!tick.steady()) {
      return;
    }
    StatefulSet sts = cache.named(StatefulSet.class, m.name()).orElse(null);
    List<Pod> pods = pods(cache, c);
    Address primaryAddress = primary == null ? null : addresses.get(primary);
    List<String> healthyReplicas =
        tick.observed().stream()
            .filter(i -> !i.name().equals(primary))
            .filter(i -> primaryAddress != null && i.replicatesFrom(primaryAddress))
            .filter(i -> !tick.plan().errant().contains(i.name()))
            .map(InstanceState::name)
            .toList();
    boolean allHealthy =
        pods.size() >= m.replicas() && healthyReplicas.size() == Math.max(0, m.replicas() - 1);
    RollingUpgrade.Move move = RollingUpgrade.next(sts, pods, primary, allHealthy, healthyReplicas);
    if (move.switchoverTo() != null && m.switchoverTarget() == null) {
      upgradeSwitchovers.put(uid, move.switchoverTo());
      events.normal(c, "UpgradeSwitchover", move.message());
    } else if (move.deletePod() != null) {
      LOG.info("{}/{}: {}", m.namespace(), m.name(), move.message());
      events.normal(c, "UpgradingInstance", move.message());
      client.pods().inNamespace(m.namespace()).withName(move.deletePod()).delete();
    }
  }

  /** Moves the role label so the primary and replicas Services follow the topology. */
  private void labelRoles(
      KubernetesClient client,
      ChildCache<MySQLCluster> cache,
      MySQLCluster c,
      TopologyController.Tick tick,
      Map<String, Address> addresses) {
    String primary = tick.record().primary();
    Address primaryAddress = primary == null ? null : addresses.get(primary);
    Map<String, String> roles = new HashMap<>();
    for (InstanceState i : tick.observed()) {
      String role = null;
      if (i.name().equals(primary) && i.writable()) {
        role = MySQLOperator.PRIMARY;
      } else if (primaryAddress != null
          && i.replicatesFrom(primaryAddress)
          && !tick.plan().errant().contains(i.name())) {
        role = MySQLOperator.REPLICA;
      }
      roles.put(i.name(), role);
    }
    List<Pod> pods = pods(cache, c);
    Map<String, Pod> byName = new HashMap<>();
    Map<String, String> current = new HashMap<>();
    for (Pod pod : pods) {
      byName.put(pod.getMetadata().getName(), pod);
      current.put(
          pod.getMetadata().getName(),
          pod.getMetadata().getLabels() == null
              ? null
              : pod.getMetadata().getLabels().get(MySQLOperator.ROLE));
    }
    for (RoleLabels.Change change : RoleLabels.changes(roles, current)) {
      // A merge patch of the one label: no read of the pod first.
      Pod patched =
          client
              .pods()
              .inNamespace(c.getMetadata().getNamespace())
              .withName(change.pod())
              .patch(MERGE, RoleLabels.patch(change.role()));
      cache.written(patched, byName.get(change.pod()));
    }
  }

  /** The database Pods of the cluster, as the Pod informer holds them. */
  private static List<Pod> pods(ChildCache<MySQLCluster> cache, MySQLCluster c) {
    Map<String, String> selector = ClusterObjects.selector(c);
    return cache.all(Pod.class).stream()
        .filter(
            p ->
                p.getMetadata().getLabels() != null
                    && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }

  private UpdateControl<MySQLCluster> block(
      Context<MySQLCluster> context,
      MySQLCluster c,
      ClusterModel m,
      String reason,
      String message,
      boolean retry) {
    MySQLClusterStatus status = statusBuilder.blocked(c, m, reason, message);
    warnOnce(c, m, reason, message);
    CachedStatusWrites.applyIfChanged(c, status, context);
    UpdateControl<MySQLCluster> control = UpdateControl.noUpdate();
    return retry ? control.rescheduleAfter(Duration.ofSeconds(30)) : control;
  }

  /** Events for the Ready transitions a person watching the cluster cares about. */
  private void announce(MySQLCluster c, MySQLClusterStatus previous, MySQLClusterStatus now) {
    var before =
        previous == null
            ? null
            : Conditions.find(previous.getConditions(), ClusterStatusBuilder.READY).orElse(null);
    var after = Conditions.find(now.getConditions(), ClusterStatusBuilder.READY).orElseThrow();
    if (before != null
        && Objects.equals(before.getStatus(), after.getStatus())
        && Objects.equals(before.getReason(), after.getReason())) {
      return;
    }
    if ("True".equals(after.getStatus())) {
      events.normal(c, "Ready", after.getMessage());
    } else {
      var degraded =
          Conditions.find(now.getConditions(), ClusterStatusBuilder.DEGRADED).orElseThrow();
      if ("True".equals(degraded.getStatus()) && before != null) {
        events.warning(c, degraded.getReason(), degraded.getMessage());
      }
    }
  }

  @Override
  public ErrorStatusUpdateControl<MySQLCluster> updateErrorStatus(
      MySQLCluster c, Context<MySQLCluster> context, Exception e) {
    String message = "reconcile failed, retrying: " + HumanMessages.describe(e);
    LOG.warn("{}/{}: {}", c.getMetadata().getNamespace(), c.getMetadata().getName(), message, e);
    try {
      // The blocked status keeps the stored topology record, which the cached primary holds.
      CachedStatusWrites.applyIfChanged(
          c, statusBuilder.blocked(c, ClusterModel.of(c), "ReconcileError", message), context);
    } catch (KubernetesClientException unwritable) {
      LOG.debug("could not record the failed reconcile", unwritable);
    }
    return ErrorStatusUpdateControl.defaultErrorProcessing();
  }
}
