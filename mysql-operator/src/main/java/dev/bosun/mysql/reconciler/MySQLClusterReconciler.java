package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.RequestAnnotations;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.dependent.Applier;
import dev.bosun.mysql.dependent.ClusterNames;
import dev.bosun.mysql.dependent.ClusterObjects;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.restore.LoadJobs;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.Addressing;
import dev.bosun.mysql.topology.InstanceState;
import dev.bosun.mysql.topology.PromotionIntent;
import dev.bosun.mysql.topology.Rebuilds;
import dev.bosun.mysql.topology.ScaleDown;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import dev.bosun.mysql.workload.Accounts;
import dev.bosun.mysql.workload.Credentials;
import dev.bosun.mysql.workload.FenceGrants;
import dev.bosun.mysql.workload.InstanceException;
import dev.bosun.mysql.workload.MetricsUsers;
import dev.bosun.mysql.workload.RebuildRecord;
import dev.bosun.mysql.workload.Rebuilder;
import dev.bosun.mysql.workload.RecordSink;
import dev.bosun.mysql.workload.TopologyController;
import dev.bosun.mysql.workload.TopologyRecord;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
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
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a MySQLCluster as a pipeline of named steps: validate the spec, find the Secrets, run
 * one health round of the replication loop (observe every instance over JDBC, plan one step, take
 * it), guard the StatefulSet's size, move the role labels, apply the Kubernetes objects, take one
 * move of a rolling upgrade, and record the status only when it changed. The round repeats every
 * poll interval: that is the health check.
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
  private final Restorers restorers;
  private final BiFunction<MySQLCluster, ClusterModel, Rebuilder> rebuilders;
  private final Map<String, Controller> controllers = new ConcurrentHashMap<>();
  private final Map<String, String> upgradeSwitchovers = new ConcurrentHashMap<>();
  private final SecretLookups secretLookups = new SecretLookups();
  private final MetricsUsers metricsUsers;
  private final FenceGrants fenceGrants;
  private final Accounts accounts;

  private record Controller(Credentials credentials, TopologyController controller) {}

  /**
   * A reconciler; {@code addressing} says where each pod's server answers, {@code restorers} gives
   * the loader of a cluster's fromBackup and {@code rebuilders} the rebuilder of its replicas.
   */
  public MySQLClusterReconciler(
      EventRecorder events,
      Addressing addressing,
      Duration pollInterval,
      Duration sqlTimeout,
      Clock clock,
      Restorers restorers,
      BiFunction<MySQLCluster, ClusterModel, Rebuilder> rebuilders) {
    this.events = events;
    this.addressing = addressing;
    this.pollInterval = pollInterval;
    this.sqlTimeout = sqlTimeout;
    this.clock = clock;
    this.statusBuilder = new ClusterStatusBuilder(clock);
    this.restorers = restorers;
    this.rebuilders = rebuilders;
    this.metricsUsers = new MetricsUsers(sqlTimeout);
    this.fenceGrants = new FenceGrants(sqlTimeout);
    this.accounts = new Accounts(sqlTimeout);
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
        // A restore Job's end wakes its cluster: the load is never polled.
        ChildInformers.following(Job.class, MySQLCluster.class, managed, context),
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            MySQLCluster.class,
            managed,
            context));
  }

  /** What one reconcile of a cluster has learnt so far, handed from step to step. */
  private static final class Round {
    final MySQLCluster c;
    final ClusterModel m;
    final MySQLClusterStatus previous;
    final Context<MySQLCluster> context;
    final KubernetesClient client;
    final ChildCache<MySQLCluster> cache;
    String invalid;
    ClusterSecrets.Found secrets;
    StatefulSet liveSts;
    String blockReason;
    String blockMessage;
    Map<String, Address> addresses;
    TopologyController controller;
    TopologyController.Tick tick;

    Round(MySQLCluster c, Context<MySQLCluster> context) {
      this.c = c;
      this.m = ClusterModel.of(c);
      this.previous = c.getStatus();
      this.context = context;
      this.client = context.getClient();
      this.cache = new ChildCache<>(context);
    }

    int liveReplicas() {
      return liveSts == null || liveSts.getSpec().getReplicas() == null
          ? 0
          : liveSts.getSpec().getReplicas();
    }
  }

  @Override
  public UpdateControl<MySQLCluster> reconcile(MySQLCluster c, Context<MySQLCluster> context) {
    // The status holds the topology record (primary, promotion point, errant members). Every
    // write of it goes through CachedStatusWrites, so the primary JOSDK hands over is never older
    // than the last failover's write: no GET is needed to decide on the stored record.
    Round round = new Round(c, context);
    Optional<UpdateControl<MySQLCluster>> stop = validateSpec(round).or(() -> findSecrets(round));
    if (stop.isPresent()) {
      return stop.get();
    }
    runHealthRound(round);
    ensureMetricsUser(round);
    ensureFenceGrants(round);
    ensureAccounts(round);
    if (round.blockReason != null) {
      // The role labels still follow the primary, so the Services reach the one after a failover.
      labelRoles(round);
      return blockedAfterRound(round, round.blockReason, round.blockMessage);
    }
    ScaleGuard.Decision scale = guardScale(round);
    labelRoles(round);
    stop = applyObjects(round, scale.statefulSetReplicas());
    if (stop.isPresent()) {
      return stop.get();
    }
    rollingUpgrade(round);
    return recordStatus(round, scale.deferred());
  }

  /** Step 1: the spec's problems; a name no child can carry stops here, creating nothing. */
  private Optional<UpdateControl<MySQLCluster>> validateSpec(Round r) {
    List<String> problems = ClusterValidator.validate(r.m, r.previous);
    r.invalid = problems.isEmpty() ? null : "invalid spec: " + String.join("; ", problems);
    if (r.invalid != null && ClusterValidator.nameProblem(r.m.name()).isPresent()) {
      // A name never changes: not even the Secrets are created.
      return Optional.of(block(r, INVALID_SPEC, r.invalid, false));
    }
    return Optional.empty();
  }

  /**
   * Step 2: the Secrets (found or generated) and the StatefulSet. An invalid spec or a Secret
   * problem holds back every change the spec asks for, never the health round of instances that
   * exist: a failover must not wait until a person fixes an unrelated field.
   */
  private Optional<UpdateControl<MySQLCluster>> findSecrets(Round r) {
    r.secrets = secretLookups.ensure(r.client, r.cache, r.c);
    r.liveSts = r.cache.named(StatefulSet.class, r.m.name()).orElse(null);
    if (r.secrets.credentials() == null || (r.invalid != null && r.liveSts == null)) {
      return Optional.of(
          r.invalid != null
              ? block(r, INVALID_SPEC, r.invalid, false)
              : block(r, r.secrets.problemReason(), r.secrets.problem(), true));
    }
    r.blockReason = r.invalid != null ? INVALID_SPEC : r.secrets.problemReason();
    r.blockMessage = r.invalid != null ? r.invalid : r.secrets.problem();
    return Optional.empty();
  }

  /** Step 3: observe every instance over JDBC, plan one replication step and take it. */
  private void runHealthRound(Round r) {
    TopologyRecord record = record(r.previous, r.m);
    int primaryOrdinal = record.primary() == null ? -1 : ordinal(record.primary());
    // While blocked, the running cluster is kept as it is: its size, no switchover.
    int desiredInstances = r.blockReason == null ? r.m.replicas() : Math.max(1, r.liveReplicas());
    int instances = Math.max(Math.max(desiredInstances, primaryOrdinal + 1), r.liveReplicas());
    r.addresses = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      String pod = ClusterNames.pod(r.c, i);
      r.addresses.put(pod, addressing.of(r.m.namespace(), r.m.name(), pod, r.m.port()));
    }
    r.controller = controller(r.c, r.m, r.secrets.credentials());
    r.tick =
        r.controller.tick(
            new TopologyController.Desired(
                desiredInstances,
                r.m.failoverEnabled(),
                r.m.failoverAfter(),
                r.blockReason != null
                    ? null
                    : r.m.switchoverTarget() != null
                        ? r.m.switchoverTarget()
                        : upgradeSwitchovers.get(r.c.getMetadata().getUid()),
                r.m.semiSyncTimeoutMillis(),
                r.m.rebuildAutomatic(),
                r.blockReason != null ? null : rebuildRequest(r.c)),
            record,
            r.addresses,
            knownErrant(r.previous),
            restorers.of(r.c, r.m, r.cache),
            new VolumeReplacement(r.context.getClient(), r.c)
                .around(
                    rebuilders.apply(r.c, r.m), ServerCrashes.unrecoverable(pods(r.cache, r.c))),
            statusSink(r.context, r.c));
    report(r.c, r.m, r.tick);
    clearRebuildRequest(r);
    forgetRecordedRestore(r);
  }

  /**
   * Step 3b: a restore Job left behind by an operator that stopped between recording the finished
   * load and deleting the Job (the record names the dump, the Job is still there) goes now, with
   * its token Secret. A failed Job stays (the record still says loading) for a person to read.
   */
  private void forgetRecordedRestore(Round r) {
    String from = r.tick.record().restoredFrom();
    if (from == null
        || TopologyRecord.RESTORE_PENDING.equals(from)
        || TopologyRecord.RESTORE_LOADING.equals(from)
        || r.cache.named(Job.class, LoadJobs.name(r.c)).isEmpty()) {
      return;
    }
    try {
      restorers.of(r.c, r.m, r.cache).forget();
    } catch (KubernetesClientException e) {
      // Nothing waits on it: the next round tries again.
      LOG.warn(
          "{}/{}: the finished restore Job could not be deleted yet: {}",
          r.m.namespace(),
          r.m.name(),
          HumanMessages.describe(e));
    }
  }

  /** The member a person asked to rebuild through the cluster's annotation, or null. */
  private static String rebuildRequest(MySQLCluster c) {
    var annotations = c.getMetadata().getAnnotations();
    String v = annotations == null ? null : annotations.get(Rebuilds.REQUEST_ANNOTATION);
    return v == null || v.isBlank() ? null : v.trim();
  }

  /**
   * Step 3a: a requested rebuild that started is taken off the cluster's annotations (as Strimzi
   * does with its manual rolling-update annotation), so it runs once.
   */
  private static void clearRebuildRequest(Round r) {
    String requested = rebuildRequest(r.c);
    var rebuild = r.tick.record().rebuild();
    if (requested == null
        || rebuild == null
        || !requested.equals(rebuild.member())
        || !"Rebuilding".equals(r.tick.outcome().reason())) {
      return;
    }
    // Only while it still names this member: one changed meanwhile is a new request and stays.
    RequestAnnotations.removeIfStill(
        r.client.resources(MySQLCluster.class).inNamespace(r.m.namespace()).withName(r.m.name()),
        Rebuilds.REQUEST_ANNOTATION,
        requested);
  }

  /**
   * Step 3b: with spec.metrics on, the exporters' user on a steady primary (it replicates); a
   * failure is logged and retried next round, it holds nothing else back.
   */
  private void ensureMetricsUser(Round r) {
    String uid = r.c.getMetadata().getUid();
    String primary = r.tick.record().primary();
    if (!r.m.exporter().enabled() || r.secrets.metricsPassword() == null) {
      metricsUsers.forget(uid);
      return;
    }
    if (!r.tick.steady() || primary == null || !r.addresses.containsKey(primary)) {
      return;
    }
    try {
      metricsUsers.ensure(
          uid,
          r.controller.dialect(),
          r.secrets.credentials(),
          r.addresses.get(primary),
          r.secrets.metricsPassword());
    } catch (InstanceException e) {
      LOG.warn("{}/{}: metrics user not ensured: {}", r.m.namespace(), r.m.name(), e.getMessage());
    }
  }

  /**
   * Step 3c: on a steady primary, no account but the operator's can write through a fence (MariaDB;
   * MySQL's fence stops every account). A failure is logged and retried next round.
   */
  private void ensureFenceGrants(Round r) {
    String primary = r.tick.record().primary();
    if (!r.tick.steady() || primary == null || !r.addresses.containsKey(primary)) {
      return;
    }
    try {
      fenceGrants.ensure(
          r.c.getMetadata().getUid(),
          r.controller.dialect(),
          r.secrets.credentials(),
          r.addresses.get(primary));
    } catch (InstanceException e) {
      LOG.warn("{}/{}: fence grants not ensured: {}", r.m.namespace(), r.m.name(), e.getMessage());
    }
  }

  /**
   * Step 3d: the application accounts of spec.users on a steady primary (they replicate), while the
   * spec and their Secrets are in order; a failure is logged and retried next round.
   */
  private void ensureAccounts(Round r) {
    String primary = r.tick.record().primary();
    if (r.blockReason != null
        || !r.tick.steady()
        || primary == null
        || !r.addresses.containsKey(primary)) {
      return;
    }
    try {
      boolean ran =
          accounts.ensure(
              r.c.getMetadata().getUid(),
              r.controller.dialect(),
              r.secrets.credentials(),
              r.addresses.get(primary),
              r.m.accounts(),
              r.secrets.accountPasswords());
      if (ran) {
        events.normal(
            r.c,
            "AccountsApplied",
            "the application accounts "
                + String.join(", ", r.m.accounts().stream().map(a -> a.name()).toList())
                + " are in place on the primary "
                + primary
                + " with their databases and privileges");
      }
    } catch (InstanceException e) {
      LOG.warn("{}/{}: accounts not applied: {}", r.m.namespace(), r.m.name(), e.getMessage());
    }
  }

  /** Step 4: the StatefulSet's size, with the reason a change the spec asks for waits. */
  private static ScaleGuard.Decision guardScale(Round r) {
    String primary = r.tick.record().primary();
    return ScaleGuard.decide(
        r.m.replicas(),
        primary == null ? -1 : ordinal(primary),
        primaryUnavailable(r.tick),
        r.liveSts == null ? null : r.liveReplicas(),
        keep -> ScaleDown.holdBack(r.tick.observed(), keep, r.controller.dialect().gtids()));
  }

  /**
   * Step 6: the Kubernetes objects, each applied only when it differs from what was last applied;
   * an object of the same name someone else controls stops here.
   */
  private Optional<UpdateControl<MySQLCluster>> applyObjects(Round r, int stsReplicas) {
    try {
      Applier applier = new Applier(r.client, r.cache);
      applier.apply(r.c, ClusterObjects.config(r.c, r.m));
      applier.apply(r.c, ClusterObjects.headless(r.c, r.m));
      applier.apply(r.c, ClusterObjects.roleService(r.c, r.m, MySQLOperator.PRIMARY));
      applier.apply(r.c, ClusterObjects.roleService(r.c, r.m, MySQLOperator.REPLICA));
      applier.apply(r.c, ClusterObjects.statefulSet(r.c, r.m, stsReplicas));
      DisruptionBudget budget = ClusterObjects.disruptionBudget(r.c);
      PodDisruptionBudgets.ensure(
          r.client,
          r.c,
          budget,
          MySQLOperator.NAME,
          r.cache.named(GenericKubernetesResource.class, budget.name()));
      return Optional.empty();
    } catch (Applier.ForeignObjectException e) {
      return Optional.of(
          blockedAfterRound(
              r,
              "ResourceConflict",
              HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH)));
    }
  }

  /** Step 8: the status, written only when it changed; the next health round is scheduled. */
  private UpdateControl<MySQLCluster> recordStatus(Round r, String deferred) {
    Map<String, String> crashes = ServerCrashes.describe(pods(r.cache, r.c));
    announceCrashes(r, crashes);
    MySQLClusterStatus status =
        statusBuilder.build(r.c, r.m, r.tick, r.addresses, deferred, crashes);
    announce(r.c, r.previous, status);
    CachedStatusWrites.applyIfChanged(r.c, status, r.context);
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(nextRound(r));
  }

  /** One Warning per member that starts crash-looping (the status before did not say so). */
  private void announceCrashes(Round r, Map<String, String> crashes) {
    Map<String, String> before = new HashMap<>();
    if (r.previous != null && r.previous.getInstances() != null) {
      r.previous.getInstances().forEach(i -> before.put(i.getName(), i.getMessage()));
    }
    crashes.forEach(
        (pod, why) -> {
          String earlier = before.get(pod);
          if (earlier == null || !earlier.contains("keeps exiting at start")) {
            events.warning(r.c, "MemberCrashLooping", pod + ": " + why);
          }
        });
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
  private UpdateControl<MySQLCluster> blockedAfterRound(Round r, String reason, String message) {
    warnOnce(r.c, r.m, reason, message);
    MySQLClusterStatus status =
        statusBuilder.blockedAfterRound(r.c, r.m, r.tick, r.addresses, reason, message);
    CachedStatusWrites.applyIfChanged(r.c, status, r.context);
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(nextRound(r));
  }

  /**
   * The poll interval, shorter while the primary is silent: the round that can decide a failover
   * ends as the detection window does, not up to a poll and a SQL timeout later.
   */
  private Duration nextRound(Round r) {
    return r.controller == null
        ? pollInterval
        : r.controller.nextRoundAfter(pollInterval, r.m.failoverAfter(), r.m.failoverEnabled());
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
                intent.getPoint() == null ? "" : intent.getPoint()),
        rebuildRecord(s.getRebuild()));
  }

  private static RebuildRecord rebuildRecord(
      dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Rebuild r) {
    if (r == null || r.getMember() == null || r.getPhase() == null) {
      return null;
    }
    return new RebuildRecord(
        r.getMember(),
        r.getSource(),
        r.getReason(),
        r.getPhase(),
        r.getStartedAt() == null ? null : r.getStartedAt().toInstant(),
        r.getFinishedAt() == null ? null : r.getFinishedAt().toInstant(),
        r.getErrantTransactions(),
        r.getMessage());
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
   * Step 7: one move of a rolling upgrade when the cluster is steady and healthy: replicas first,
   * the primary last after a switchover (spec.switchover.target, when set, wins).
   */
  private void rollingUpgrade(Round r) {
    KubernetesClient client = r.client;
    ChildCache<MySQLCluster> cache = r.cache;
    MySQLCluster c = r.c;
    ClusterModel m = r.m;
    TopologyController.Tick tick = r.tick;
    Map<String, Address> addresses = r.addresses;
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

  /** Step 5: moves the role label so the primary and replicas Services follow the topology. */
  private void labelRoles(Round r) {
    KubernetesClient client = r.client;
    ChildCache<MySQLCluster> cache = r.cache;
    MySQLCluster c = r.c;
    TopologyController.Tick tick = r.tick;
    Map<String, Address> addresses = r.addresses;
    String primary = tick.record().primary();
    Address primaryAddress = primary == null ? null : addresses.get(primary);
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
    // What was observed precedes this round's step: a member it just promoted takes writes now
    // (labelled at once, not a poll later, so clients reach it), and the replicas it repointed
    // keep their label until the next round observes them.
    String promoted = tick.promoted();
    Map<String, String> roles = new HashMap<>();
    for (InstanceState i : tick.observed()) {
      String role = null;
      boolean errant = tick.plan().errant().contains(i.name());
      if (i.name().equals(primary) && (i.writable() || i.name().equals(promoted))) {
        role = MySQLOperator.PRIMARY;
      } else if (primaryAddress != null && i.replicatesFrom(primaryAddress) && !errant) {
        role = MySQLOperator.REPLICA;
      } else if (promoted != null
          && i.reachable()
          && !errant
          && MySQLOperator.REPLICA.equals(current.get(i.name()))) {
        role = MySQLOperator.REPLICA;
      }
      roles.put(i.name(), role);
    }
    for (RoleLabels.Change change : RoleLabels.changes(roles, current)) {
      // A merge patch of the one label: no read of the pod first.
      Pod patched;
      try {
        patched =
            client
                .pods()
                .inNamespace(c.getMetadata().getNamespace())
                .withName(change.pod())
                .patch(MERGE, RoleLabels.patch(change.role()));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // The Pod went since the informer saw it (force-deleted, evicted): its successor starts
        // without the label, and failing the round here would hold back the failover by the
        // error retries' back-off.
        LOG.info("{}/{}: pod {} is gone; not labelled", r.m.namespace(), r.m.name(), change.pod());
        continue;
      }
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

  private UpdateControl<MySQLCluster> block(Round r, String reason, String message, boolean retry) {
    MySQLClusterStatus status = statusBuilder.blocked(r.c, r.m, reason, message);
    warnOnce(r.c, r.m, reason, message);
    CachedStatusWrites.applyIfChanged(r.c, status, r.context);
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
    // The blocked status keeps the stored topology record, which the cached primary holds.
    return FailedReconciles.record(
        c,
        context,
        e,
        m -> statusBuilder.blocked(c, ClusterModel.of(c), FailedReconciles.REASON, m));
  }
}
