package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.dependent.PrimaryDeletions;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.execute.Rebuilder;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterNames;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Addressing;
import dev.bosun.mysql.plan.ScaleDown;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

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

  private final Addressing addressing;
  private final Duration pollInterval;
  private final ClusterStatusBuilder statusBuilder;
  private final Restorers restorers;
  private final BiFunction<MySQLCluster, ClusterModel, Rebuilder> rebuilders;
  private final TopologyControllers controllers;
  private final SecretLookups secretLookups = new SecretLookups();
  private final PrimaryUpkeep upkeep;
  private final UpgradeMoves upgrades;
  private final ClusterEvents announce;

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
    this.addressing = addressing;
    this.pollInterval = pollInterval;
    this.statusBuilder = new ClusterStatusBuilder(clock);
    this.controllers = new TopologyControllers(sqlTimeout, clock);
    this.restorers = restorers;
    this.rebuilders = rebuilders;
    this.upkeep = new PrimaryUpkeep(events, sqlTimeout);
    this.upgrades = new UpgradeMoves(events);
    this.announce = new ClusterEvents(events);
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
            context),
        // What is kept per cluster between rounds goes with the cluster, with no finalizer.
        new PrimaryDeletions<MySQLCluster>("mysql-cluster-deletions", this::forget));
  }

  /** Forgets what this operator keeps in memory for a deleted cluster. */
  void forget(MySQLCluster c) {
    String uid = c.getMetadata().getUid();
    controllers.forget(uid);
    upkeep.forget(uid);
    upgrades.forget(uid);
    secretLookups.forget(uid);
    rebuilders.apply(c, ClusterModel.of(c)).forget();
  }

  @Override
  public UpdateControl<MySQLCluster> reconcile(MySQLCluster c, Context<MySQLCluster> context) {
    // The status holds the topology record (primary, promotion point, errant members). Every
    // write of it goes through CachedStatusWrites, so the primary JOSDK hands over is never older
    // than the last failover's write: no GET is needed to decide on the stored record.
    ClusterRound r = new ClusterRound(c, context);
    String invalid = specProblems(r);
    if (invalid != null && ClusterValidator.nameProblem(r.m().name()).isPresent()) {
      // A name never changes: not even the Secrets are created.
      return block(r, new ClusterRound.Hold(INVALID_SPEC, invalid), false);
    }
    ClusterRound.Admission admission = admit(r, invalid);
    if (admission.nothingRuns()) {
      return block(r, admission.hold(), !INVALID_SPEC.equals(admission.hold().reason()));
    }
    ClusterRound.Health health = runHealthRound(r, admission);
    upkeep.keep(steadyPrimary(r, admission, health));
    // The role labels follow the primary even while blocked, so the Services reach the one after
    // a failover.
    RoleLabelling.apply(r.client(), r.cache(), c, health.tick(), health.addresses());
    if (admission.hold().holds()) {
      return blockedAfterRound(r, health, admission.hold());
    }
    ScaleGuard.Decision scale = guardScale(r, admission, health);
    Optional<UpdateControl<MySQLCluster>> conflict =
        applyObjects(r, health, scale.statefulSetReplicas());
    if (conflict.isPresent()) {
      return conflict.get();
    }
    upgrades.next(r.client(), r.cache(), c, r.m(), health.tick(), health.addresses());
    return recordStatus(r, health, scale.deferred());
  }

  /** Step 1: the spec's problems as one message, or null when it is valid. */
  private static String specProblems(ClusterRound r) {
    List<String> problems = ClusterValidator.validate(r.m(), r.previous());
    return problems.isEmpty() ? null : "invalid spec: " + String.join("; ", problems);
  }

  /**
   * Step 2: the Secrets (found or generated) and the StatefulSet. An invalid spec or a Secret
   * problem holds back every change the spec asks for, never the health round of instances that
   * exist: a failover must not wait until a person fixes an unrelated field.
   */
  private ClusterRound.Admission admit(ClusterRound r, String invalid) {
    ClusterSecrets.Found secrets = secretLookups.ensure(r.client(), r.cache(), r.c());
    StatefulSet liveSts = r.cache().named(StatefulSet.class, r.m().name()).orElse(null);
    ClusterRound.Hold hold =
        invalid != null
            ? new ClusterRound.Hold(INVALID_SPEC, invalid)
            : secrets.problemReason() != null
                ? new ClusterRound.Hold(secrets.problemReason(), secrets.problem())
                : ClusterRound.Hold.NONE;
    return new ClusterRound.Admission(secrets, liveSts, hold);
  }

  /** Step 3: observe every instance over JDBC, plan one replication step and take it. */
  private ClusterRound.Health runHealthRound(ClusterRound r, ClusterRound.Admission a) {
    TopologyRecord record = StatusRecords.record(r.previous(), r.m());
    int primaryOrdinal = record.primary() == null ? -1 : StatusRecords.ordinal(record.primary());
    boolean held = a.hold().holds();
    // While blocked, the running cluster is kept as it is: its size, no switchover.
    int desiredInstances = held ? Math.max(1, a.liveReplicas()) : r.m().replicas();
    int instances = Math.max(Math.max(desiredInstances, primaryOrdinal + 1), a.liveReplicas());
    Map<String, Address> addresses = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      String pod = ClusterNames.pod(r.c(), i);
      addresses.put(pod, addressing.of(r.m().namespace(), r.m().name(), pod, r.m().port()));
    }
    TopologyController controller = controllers.of(r.c(), r.m(), a.secrets().credentials());
    TopologyController.Tick tick =
        controller.tick(
            desired(r, desiredInstances, held),
            record,
            addresses,
            StatusRecords.knownErrant(r.previous()),
            restorers.of(r.c(), r.m(), r.cache()),
            new VolumeReplacement(r.client(), r.c())
                .around(
                    rebuilders.apply(r.c(), r.m()),
                    ServerCrashes.unrecoverable(ClusterPods.of(r.cache(), r.c()))),
            StatusRecords.sink(r.context(), r.c()));
    announce.round(r.c(), r.m(), tick);
    RebuildRequests.clearStarted(r.client(), r.c(), tick);
    FinishedRestores.forget(restorers, r.c(), r.m(), r.cache(), tick.record());
    return new ClusterRound.Health(addresses, controller, tick);
  }

  /** What the health round aims at; while held, no switchover and no requested rebuild. */
  private TopologyController.Desired desired(ClusterRound r, int instances, boolean held) {
    return new TopologyController.Desired(
        instances,
        r.m().failoverEnabled(),
        r.m().failoverAfter(),
        held
            ? null
            : r.m().switchoverTarget() != null
                ? r.m().switchoverTarget()
                : upgrades.switchoverTarget(r.c().getMetadata().getUid()),
        r.m().semiSyncTimeoutMillis(),
        r.m().rebuildAutomatic(),
        held ? null : RebuildRequests.of(r.c()));
  }

  /** Step 3b: the round's steady primary, for what is kept in place on it. */
  private static PrimaryUpkeep.Primary steadyPrimary(
      ClusterRound r, ClusterRound.Admission a, ClusterRound.Health h) {
    String primary = h.tick().record().primary();
    boolean steady = h.tick().steady() && primary != null && h.addresses().containsKey(primary);
    return new PrimaryUpkeep.Primary(
        r.c(),
        r.m(),
        primary,
        steady ? h.addresses().get(primary) : null,
        h.controller().dialect(),
        a.secrets(),
        a.hold().holds());
  }

  /** Step 4: the StatefulSet's size, with the reason a change the spec asks for waits. */
  private static ScaleGuard.Decision guardScale(
      ClusterRound r, ClusterRound.Admission a, ClusterRound.Health h) {
    String primary = h.tick().record().primary();
    return ScaleGuard.decide(
        r.m().replicas(),
        primary == null ? -1 : StatusRecords.ordinal(primary),
        ScaleGuard.primaryUnavailable(h.tick()),
        a.liveSts() == null ? null : a.liveReplicas(),
        keep -> ScaleDown.holdBack(h.tick().observed(), keep, h.controller().dialect().gtids()));
  }

  /**
   * Step 6: the Kubernetes objects, each applied only when it differs from what was last applied;
   * an object of the same name someone else controls stops here.
   */
  private Optional<UpdateControl<MySQLCluster>> applyObjects(
      ClusterRound r, ClusterRound.Health h, int stsReplicas) {
    try {
      ClusterChildren.apply(r.client(), r.cache(), r.c(), r.m(), stsReplicas);
      return Optional.empty();
    } catch (Applier.ForeignObjectException e) {
      return Optional.of(
          blockedAfterRound(
              r,
              h,
              new ClusterRound.Hold(
                  "ResourceConflict",
                  HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH))));
    }
  }

  /** Step 8: the status, written only when it changed; the next health round is scheduled. */
  private UpdateControl<MySQLCluster> recordStatus(
      ClusterRound r, ClusterRound.Health h, String deferred) {
    Map<String, String> crashes = ServerCrashes.describe(ClusterPods.of(r.cache(), r.c()));
    announce.crashes(r.c(), r.previous(), crashes);
    Map<String, String> why =
        ServerCrashes.orConnectionErrors(crashes, h.controller().unreachableReasons());
    MySQLClusterStatus status =
        statusBuilder.build(r.c(), r.m(), h.tick(), h.addresses(), deferred, why);
    announce.readiness(r.c(), r.previous(), status);
    CachedStatusWrites.applyIfChanged(r.c(), status, r.context());
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(nextRound(r, h));
  }

  /**
   * The status of a round that ran while the spec, a Secret or a foreign object blocks the rest:
   * one Warning per new block, and the next health round after the poll interval.
   */
  private UpdateControl<MySQLCluster> blockedAfterRound(
      ClusterRound r, ClusterRound.Health h, ClusterRound.Hold hold) {
    announce.blockedOnce(r.c(), r.m(), hold.reason(), hold.message());
    MySQLClusterStatus status =
        statusBuilder.blockedAfterRound(
            r.c(), r.m(), h.tick(), h.addresses(), hold.reason(), hold.message());
    CachedStatusWrites.applyIfChanged(r.c(), status, r.context());
    return UpdateControl.<MySQLCluster>noUpdate().rescheduleAfter(nextRound(r, h));
  }

  /**
   * The poll interval, shorter while the primary is silent: the round that can decide a failover
   * ends as the detection window does, not up to a poll and a SQL timeout later.
   */
  private Duration nextRound(ClusterRound r, ClusterRound.Health h) {
    return h.controller()
        .nextRoundAfter(pollInterval, r.m().failoverAfter(), r.m().failoverEnabled());
  }

  /** A round that ran no health round: the block's status, retried later when it can clear. */
  private UpdateControl<MySQLCluster> block(ClusterRound r, ClusterRound.Hold hold, boolean retry) {
    MySQLClusterStatus status = statusBuilder.blocked(r.c(), r.m(), hold.reason(), hold.message());
    announce.blockedOnce(r.c(), r.m(), hold.reason(), hold.message());
    CachedStatusWrites.applyIfChanged(r.c(), status, r.context());
    UpdateControl<MySQLCluster> control = UpdateControl.noUpdate();
    return retry ? control.rescheduleAfter(Duration.ofSeconds(30)) : control;
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
