package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.dependent.ClusterServices;
import dev.bosun.etcd.dependent.MemberBudget;
import dev.bosun.etcd.dependent.Owners;
import dev.bosun.etcd.etcd.ClusterObserver;
import dev.bosun.etcd.etcd.EtcdClients;
import dev.bosun.etcd.etcd.EtcdConnections;
import dev.bosun.etcd.etcd.EtcdMembership;
import dev.bosun.etcd.etcd.EtcdView;
import dev.bosun.etcd.maintenance.MaintenancePlanner;
import dev.bosun.etcd.maintenance.MaintenanceStep;
import dev.bosun.etcd.maintenance.NoSpaceQuota;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.membership.DestructiveSteps;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.membership.MembershipPlanner;
import dev.bosun.etcd.membership.Observation;
import dev.bosun.etcd.membership.ObservedMember;
import dev.bosun.etcd.membership.Step;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Defragmentation;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles an EtcdCluster: read the member Pods and volumes, validate what the schema cannot,
 * make sure the Services exist, observe etcd (membership and every member's status), let the {@link
 * MembershipPlanner} choose one step, carry it out, and record the status only when it changed.
 * Healthy clusters are looked at again every {@link #HEALTH_INTERVAL} (reads only).
 */
@ControllerConfiguration(fieldManager = EtcdOperator.NAME)
public class EtcdClusterReconciler implements Reconciler<EtcdCluster> {

  static final String INVALID_SPEC = "InvalidSpec";

  /** Ready's reason while a disaster recovery waits for the old member Pods to be gone. */
  static final String RECOVERY_WAITING = "RecoveryWaitingForOldMembers";

  /** How often a converged cluster's health is polled. */
  public static final Duration HEALTH_INTERVAL = Duration.ofSeconds(15);

  private static final Logger LOG = LoggerFactory.getLogger(EtcdClusterReconciler.class);

  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final EtcdClusterStatusBuilder statuses;
  private final EtcdConnections connections;
  private final PdbWriter pdbs;
  private final String operatorImage;
  private final RestoreSources restoreSources;
  private final Clock clock;

  public EtcdClusterReconciler(
      MemberAddressing addressing,
      EventRecorder events,
      Clock clock,
      PdbWriter pdbs,
      String operatorImage,
      RestoreSources restoreSources,
      EtcdConnections connections) {
    this.connections = connections;
    this.operatorImage = operatorImage;
    this.restoreSources = restoreSources;
    this.clock = clock;
    this.addressing = addressing;
    this.events = events;
    this.statuses = new EtcdClusterStatusBuilder(clock);
    this.pdbs = pdbs;
  }

  /** Writes the cluster's PodDisruptionBudget (the common helper picks the policy API version). */
  @FunctionalInterface
  public interface PdbWriter {
    /** {@code cached}: the informer's copy of the budget, trusted when it already matches. */
    void ensure(
        KubernetesClient client,
        EtcdCluster cluster,
        int minAvailable,
        Optional<GenericKubernetesResource> cached);
  }

  @Override
  public List<EventSource<?, EtcdCluster>> prepareEventSources(
      EventSourceContext<EtcdCluster> context) {
    // A member Pod that disappears (or is being deleted) is worth an immediate look; its other
    // updates are not (health comes from etcd, not from Pod readiness).
    var pods =
        InformerEventSourceConfiguration.from(Pod.class, EtcdCluster.class)
            .withName("member-pods")
            .withLabelSelector(EtcdOperator.MANAGED_SELECTOR)
            .withOnAddFilter(pod -> false)
            .withOnUpdateFilter(
                (pod, old) ->
                    pod.getMetadata().getDeletionTimestamp() != null
                        && old.getMetadata().getDeletionTimestamp() == null)
            .withSecondaryToPrimaryMapper(Labels.toInstanceOwner())
            .withItemStore(new TrimmedItemStore<>())
            .build();
    // Volumes, Services and the budget only serve reads from the cache (a converged cluster costs
    // no API request); one that disappears wakes the cluster too.
    String managed = EtcdOperator.MANAGED_SELECTOR;
    return List.of(
        new InformerEventSource<>(pods, context),
        ChildInformers.of(PersistentVolumeClaim.class, EtcdCluster.class, managed, context),
        ChildInformers.of(Service.class, EtcdCluster.class, managed, context),
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            EtcdCluster.class,
            managed,
            context));
  }

  @Override
  public UpdateControl<EtcdCluster> reconcile(EtcdCluster cached, Context<EtcdCluster> context) {
    try {
      // Every status write goes through CachedStatusWrites, so the cluster JOSDK hands over is
      // never older than this operator's own last write: its recovery and quorum bookkeeping can
      // be trusted without a GET.
      return reconcileCluster(cached, context);
    } catch (KubernetesClientException e) {
      if (terminating(e)) {
        // The namespace is going away with everything in it: nothing to create, nothing to say.
        LOG.debug("namespace is terminating: {}", e.getMessage());
        return UpdateControl.noUpdate();
      }
      throw e;
    }
  }

  private static boolean terminating(KubernetesClientException e) {
    return e.getCode() == 403
        && e.getStatus() != null
        && e.getStatus().getDetails() != null
        && e.getStatus().getDetails().getCauses().stream()
            .anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
  }

  /** What one reconcile of a cluster has learnt so far, handed from step to step. */
  private static final class Round {
    final EtcdCluster cluster;
    final Context<EtcdCluster> context;
    final KubernetesClient client;
    final ChildCache<EtcdCluster> cache;
    final EtcdClusterStatus previous;
    final ClusterRef ref;
    MemberInventory inventory;
    EtcdClients clients;
    EtcdMembership etcd;
    EtcdView view;
    Step step;
    Optional<RestoreSource> restore = Optional.empty();
    DisasterRecovery.Decision recovery;

    Round(EtcdCluster cluster, Context<EtcdCluster> context, ClusterRef ref) {
      this.cluster = cluster;
      this.context = context;
      this.client = context.getClient();
      this.cache = new ChildCache<>(context);
      this.previous = cluster.getStatus();
      this.ref = ref;
      this.inventory = MemberInventory.cached(cache, cluster);
    }

    String namespace() {
      return cluster.getMetadata().getNamespace();
    }
  }

  private UpdateControl<EtcdCluster> reconcileCluster(
      EtcdCluster cluster, Context<EtcdCluster> context) {
    Round r = new Round(cluster, context, ref(cluster));
    Optional<UpdateControl<EtcdCluster>> stop = validateSpec(r);
    if (stop.isPresent()) {
      return stop.get();
    }
    ensureServices(r);
    stop = connect(r);
    if (stop.isPresent()) {
      return stop.get();
    }
    if (recovering(r.previous) && r.previous.getClusterId() != null) {
      // A recovery's intent is recorded: take the old cluster apart, one safe step a round.
      return stopOldCluster(r);
    }
    observe(r);
    ensureBudget(r);
    planStep(r);
    findRestoreSource(r);
    stop = startDisasterRecovery(r);
    if (stop.isPresent()) {
      return stop.get();
    }
    StepExecutor.Outcome outcome = executeStep(r);
    return recordStatus(r, outcome);
  }

  /** Step 1: what the schema cannot check; an invalid spec changes nothing and waits for a fix. */
  private Optional<UpdateControl<EtcdCluster>> validateSpec(Round r) {
    List<String> problems =
        EtcdClusterValidator.validate(
            r.cluster.getMetadata().getName(), r.cluster.getSpec(), r.inventory.runningVersions());
    if (problems.isEmpty()) {
      return Optional.empty();
    }
    String message = "invalid spec: " + String.join("; ", problems);
    EtcdClusterStatus status = statuses.blocked(r.cluster, INVALID_SPEC, message);
    if (!sameReady(r.previous, status)) {
      LOG.warn("{}: {}", INVALID_SPEC, message);
      events.warning(r.cluster, INVALID_SPEC, message);
    }
    // No reschedule: the next spec change brings us back; nothing is changed meanwhile.
    return Optional.of(record(r.context, r.cluster, status));
  }

  /** Step 2: the headless peer Service and the client Service. */
  private void ensureServices(Round r) {
    ensureService(r.client, r.cache, ClusterServices.peer(r.cluster), r.cluster);
    ensureService(r.client, r.cache, ClusterServices.client(r.cluster), r.cluster);
  }

  /** Step 3: clients for the members; an unusable TLS Secret stops here and is looked at again. */
  private Optional<UpdateControl<EtcdCluster>> connect(Round r) {
    try {
      r.clients = connections.of(r.client, r.cluster);
    } catch (IllegalArgumentException e) {
      // The connections' own sentence about the Secret, bounded: it may quote a parser's reason.
      String message = HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH);
      EtcdClusterStatus status = statuses.blocked(r.cluster, "TlsSecretUnusable", message);
      if (!sameReady(r.previous, status)) {
        events.warning(r.cluster, "TlsSecretUnusable", message);
      }
      return Optional.of(
          record(r.context, r.cluster, status).rescheduleAfter(Duration.ofSeconds(10)));
    }
    r.etcd = new EtcdMembership(r.clients);
    return Optional.empty();
  }

  /** Step 4: etcd's membership and every known member's status, read over the client API. */
  private void observe(Round r) {
    r.view = new ClusterObserver(r.etcd, addressing).observe(r.ref, knownNames(r));
  }

  /** The names whose members may answer; retained volumes belong to former members. */
  private static Set<String> knownNames(Round r) {
    Set<String> known = new HashSet<>(r.inventory.pods().keySet());
    known.addAll(r.inventory.volumes().keySet());
    if (r.previous != null && r.previous.getMembers() != null) {
      r.previous.getMembers().forEach(m -> known.add(m.getName()));
    }
    return known;
  }

  /** Step 5: the budget that keeps a quorum through voluntary disruptions. */
  private void ensureBudget(Round r) {
    pdbs.ensure(
        r.client,
        r.cluster,
        MemberBudget.minAvailable(r.view, r.previous, r.cluster.getSpec().getSize()),
        r.cache.named(GenericKubernetesResource.class, r.cluster.getMetadata().getName()));
  }

  /** Step 6: the one membership step the planner chooses. */
  private void planStep(Round r) {
    r.step = plan(r.cluster, r.view, r.inventory);
    if (!(r.step instanceof Step.Converged) && r.inventory.fromCache()) {
      // The planner wants to act on members: decide that on the API server's list, never on a
      // cache that may not yet hold a Pod or volume made a moment ago.
      r.inventory = MemberInventory.read(r.client, r.cluster);
      r.step = plan(r.cluster, r.view, r.inventory);
    }
    if (DestructiveSteps.destructive(r.step)) {
      confirmDestructiveStep(r);
    }
  }

  /**
   * A step that removes a member or deletes a Pod or volume is planned again on a linearizable
   * member list read through the leader, and carried out only if that plan chooses it too.
   */
  private void confirmDestructiveStep(Round r) {
    Optional<ObservedMember> leader = r.view.leader().filter(m -> !m.name().isEmpty());
    EtcdView confirmed =
        leader.isEmpty()
            ? EtcdView.unreachable()
            : new ClusterObserver(r.etcd, addressing)
                .confirm(r.ref, knownNames(r), addressing.clientUrl(r.ref, leader.get().name()));
    if (!confirmed.reachable()) {
      r.step = DestructiveSteps.unconfirmed(r.step);
      return;
    }
    Step planned = r.step;
    r.step = DestructiveSteps.confirm(planned, plan(r.cluster, confirmed, r.inventory));
    r.view = confirmed;
    if (!r.step.equals(planned)) {
      LOG.info(
          "the member list read through the leader differs from the first one read (a member"
              + " lagging behind answered first): not {}; {} instead",
          planned.message(),
          r.step.message());
    }
  }

  /** Step 7: the snapshot a first member starts from when the spec asks for a restored cluster. */
  private void findRestoreSource(Round r) {
    var bootstrap = r.cluster.getSpec().getBootstrap();
    var fromBackup = bootstrap == null ? null : bootstrap.getFromBackup();
    // A disaster recovery's first member restores from the recovery's backup.
    var dr = r.cluster.getSpec().getDisasterRecovery();
    String backup =
        recovering(r.previous)
            ? dr == null ? null : dr.getRestoreFromBackup()
            : fromBackup == null ? null : fromBackup.getBackupName();
    if (!(r.step instanceof Step.Bootstrap)) {
      return;
    }
    if (backup == null && recovering(r.previous)) {
      // The old cluster is already stopped: starting an empty one instead would lose everything.
      r.step =
          new Step.Wait(
              "RecoveryBackupMissing",
              "disaster recovery from "
                  + r.previous.getRecoveringFrom()
                  + " has stopped the old members, but spec.disasterRecovery.restoreFromBackup"
                  + " is no longer set: set it again so the first member can be restored");
      return;
    }
    if (backup == null) {
      return;
    }
    try {
      r.restore = Optional.of(restoreSources.newest(r.client, r.namespace(), backup));
    } catch (RestoreSources.NotRestorable e) {
      // Never start an empty cluster when a restored one was asked for.
      r.step = new Step.Wait(e.reason(), e.getMessage());
    }
  }

  /** Step 8: a lost quorum past its grace period, when opted in, starts a disaster recovery. */
  private Optional<UpdateControl<EtcdCluster>> startDisasterRecovery(Round r) {
    r.recovery =
        DisasterRecovery.decide(
            r.cluster,
            r.step,
            r.previous == null ? null : r.previous.getQuorumLostSince(),
            clock.instant(),
            () ->
                restoreSources.newest(
                    r.client,
                    r.namespace(),
                    r.cluster.getSpec().getDisasterRecovery().getRestoreFromBackup()));
    if (recovering(r.previous)) {
      // The old cluster is gone and forgotten: this round belongs to the restored first member.
      r.recovery =
          new DisasterRecovery.Restoring(
              DesiredCondition.isTrue(
                  DisasterRecovery.CONDITION,
                  "RestoringFirstMember",
                  "disaster recovery from "
                      + r.previous.getRecoveringFrom()
                      + ": "
                      + new RecoveryPlanner.RestoreFirstMember().message()));
      return Optional.empty();
    }
    if (!(r.recovery instanceof DisasterRecovery.Start start)) {
      return Optional.empty();
    }
    // Intent first: the recovery is recorded before anything is stopped, so an operator that
    // dies at any later point resumes it instead of finding members gone and nothing said.
    EtcdClusterStatus status = statusOf(r, r.step, start.condition());
    status.setRecoveringFrom(start.source().location());
    announce(r.cluster, status);
    return Optional.of(record(r.context, r.cluster, status).rescheduleAfter(Duration.ofSeconds(1)));
  }

  private static boolean recovering(EtcdClusterStatus status) {
    return status != null && status.getRecoveringFrom() != null;
  }

  /**
   * A recorded disaster recovery whose old cluster is not yet forgotten: its next step, chosen by
   * the {@link RecoveryPlanner} on the API server's list of Pods and volumes.
   */
  private UpdateControl<EtcdCluster> stopOldCluster(Round r) {
    MemberInventory inventory = MemberInventory.read(r.client, r.cluster);
    String from = r.previous.getRecoveringFrom();
    Set<String> live = new HashSet<>();
    Set<String> terminating = new HashSet<>();
    inventory
        .pods()
        .forEach(
            (name, pod) ->
                (pod.getMetadata().getDeletionTimestamp() == null ? live : terminating).add(name));
    RecoveryPlanner.RecoveryStep step =
        RecoveryPlanner.plan(
            new RecoveryPlanner.Input(false, inventory.volumes().keySet(), live, terminating));
    String reason = "DisasterRecovery";
    if (step instanceof RecoveryPlanner.RetainVolumes v) {
      DisasterRecovery.retainVolumes(r.client, r.cluster, inventory, v.members(), events);
    } else if (step instanceof RecoveryPlanner.StopPods p) {
      DisasterRecovery.stopPods(r.client, r.cluster, p.members(), events);
    } else if (step instanceof RecoveryPlanner.WaitForPods) {
      return waitToRecover(
          r.context,
          r.cluster,
          RECOVERY_WAITING,
          waitingForOldMembers(from, inventory.pods().values()),
          Duration.ofSeconds(1));
    } else if (step instanceof RecoveryPlanner.ForgetOldCluster forget) {
      EtcdClusterStatus status =
          statuses.blocked(
              r.cluster, reason, "disaster recovery from " + from + ": " + forget.message());
      status.setClusterId(null);
      status.setMembers(null);
      status.setLeader(null);
      status.setHealthyMembers(0);
      status.setQuorumLostSince(null);
      LOG.info("disaster recovery from {}: {}", from, forget.message());
      return record(r.context, r.cluster, status).rescheduleAfter(Duration.ofMillis(500));
    }
    return waitToRecover(
        r.context,
        r.cluster,
        reason,
        "disaster recovery from " + from + ": " + step.message(),
        Duration.ofMillis(500));
  }

  /** The status this round observed, after {@code step}, with the disaster recovery condition. */
  private EtcdClusterStatus statusOf(Round r, Step step, DesiredCondition recovery) {
    return statuses.build(
        r.cluster, r.ref, addressing, r.view, r.inventory.resources(), step, recovery);
  }

  /** Step 9: carry out the step, move the voter labels, close clients no member needs. */
  private StepExecutor.Outcome executeStep(Round r) {
    StepExecutor executor = new StepExecutor(r.client, r.etcd, addressing, events, operatorImage);
    StepExecutor.Outcome outcome =
        executor.execute(r.cluster, r.ref, r.view, r.inventory, r.step, r.restore);
    if (r.view.reachable()) {
      labelVoters(executor, r.cluster, r.view, r.inventory);
    }
    r.clients.retain(inUse(r.ref, r.view, r.inventory));
    return outcome;
  }

  /**
   * Step 10: maintenance when converged, then the status (written only when it changed) and when to
   * look again.
   */
  private UpdateControl<EtcdCluster> recordStatus(Round r, StepExecutor.Outcome outcome) {
    EtcdClusterStatus status = statusOf(r, outcome.step(), r.recovery.condition());
    // Also when the operator died between creating the restored member's Pod and this write.
    status.setRestoredFrom(
        EtcdClusterStatusBuilder.restoredFrom(
            r.previous,
            outcome.done() && r.restore.isPresent() ? r.restore.get().location() : null,
            r.inventory.pods().values()));
    if (recovering(r.previous) && status.getClusterId() == null) {
      // Until the restored member answers, a restart must still restore, never start empty.
      status.setRecoveringFrom(r.previous.getRecoveringFrom());
    }
    boolean maintained = maintain(r.cluster, r.ref, r.etcd, r.view, outcome.step(), status);
    announce(r.cluster, status);
    Duration next = maintained ? Duration.ofMillis(500) : nextLook(outcome);
    return record(r.context, r.cluster, status).rescheduleAfter(next);
  }

  private Step plan(EtcdCluster cluster, EtcdView view, MemberInventory inventory) {
    return MembershipPlanner.plan(
        new Observation(
            cluster.getMetadata().getName(),
            view.reachable(),
            view.members(),
            inventory.resources(),
            inventory.retained(),
            cluster.getStatus() != null && cluster.getStatus().getClusterId() != null,
            cluster.getSpec().getSize(),
            cluster.getSpec().getVersion(),
            clock.instant()));
  }

  /** Writes the status when it changed, into JOSDK's cache as well; the caller says when next. */
  private static UpdateControl<EtcdCluster> record(
      Context<EtcdCluster> context, EtcdCluster cluster, EtcdClusterStatus status) {
    CachedStatusWrites.applyIfChanged(cluster, status, context);
    return UpdateControl.noUpdate();
  }

  /**
   * Maintenance once the membership planner has nothing to do: NOSPACE recovery when opted in, or
   * the next member of a due defragmentation round. Records the round in the status; true when
   * something was done.
   */
  private boolean maintain(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdMembership etcd,
      EtcdView view,
      Step step,
      EtcdClusterStatus status) {
    var spec = cluster.getSpec().getMaintenance();
    Optional<CronSchedule> schedule =
        Optional.ofNullable(spec == null ? null : spec.getDefragmentation())
            .map(d -> d.getSchedule())
            .map(CronSchedule::parse);
    ZonedDateTime now = ZonedDateTime.now(clock).withNano(0);
    ZonedDateTime created = ZonedDateTime.parse(cluster.getMetadata().getCreationTimestamp());
    Defragmentation round =
        status.getDefragmentation() == null
            ? new Defragmentation()
            : Serialization.clone(status.getDefragmentation());
    MaintenanceStep next =
        MaintenancePlanner.plan(
            new MaintenancePlanner.Input(
                cluster.getMetadata().getName(),
                step instanceof Step.Converged,
                view.members(),
                view.alarms(),
                spec != null && Boolean.TRUE.equals(spec.getRecoverFromNoSpace()),
                noSpaceRecoveryStopped(cluster),
                schedule,
                MaintenanceRounds.of(round),
                created,
                now));
    var storage = cluster.getSpec().getStorage();
    MaintenanceExecutor.Result result =
        new MaintenanceExecutor(etcd, addressing, events)
            .execute(
                cluster,
                ref,
                view,
                next,
                round,
                now,
                NoSpaceQuota.of(storage == null ? null : storage.getQuotaBackendBytes()));
    boolean acted = result.acted();
    Optional<String> stopped =
        result
            .noSpaceStopped()
            .or(
                () ->
                    next instanceof MaintenanceStep.NoSpaceRecoveryStopped
                        ? Conditions.find(
                                cluster.getStatus().getConditions(),
                                EtcdClusterStatusBuilder.DEGRADED)
                            .map(Condition::getMessage)
                        : Optional.empty());
    stopped.ifPresent(message -> sayNoSpaceStopped(status, message));
    round.setNextScheduleTime(
        MaintenancePlanner.next(schedule, MaintenanceRounds.of(round), created).orElse(null));
    boolean any = round.getStartedAt() != null || round.getNextScheduleTime() != null;
    status.setDefragmentation(any ? round : null);
    return acted;
  }

  /** What a disaster recovery waits for while old member Pods are still there. */
  static String waitingForOldMembers(String from, java.util.Collection<Pod> pods) {
    List<String> left =
        pods.stream()
            .map(
                p ->
                    p.getMetadata().getName()
                        + (p.getMetadata().getDeletionTimestamp() == null
                            ? " (not deleted)"
                            : " (terminating since "
                                + p.getMetadata().getDeletionTimestamp()
                                + ")"))
            .toList();
    return "disaster recovery from "
        + from
        + ": waiting for the old member Pods to be gone before the first new member starts: "
        + String.join(", ", left);
  }

  /**
   * True when a NOSPACE recovery already stopped short of the quota for this generation of the
   * spec: it is tried again only after the spec changes (a larger quota, or the user's word).
   */
  private static boolean noSpaceRecoveryStopped(EtcdCluster cluster) {
    return cluster.getStatus() != null
        && Conditions.find(cluster.getStatus().getConditions(), EtcdClusterStatusBuilder.DEGRADED)
            .filter(c -> MaintenanceExecutor.NO_SPACE_STOPPED.equals(c.getReason()))
            .filter(
                c ->
                    Objects.equals(
                        c.getObservedGeneration(), cluster.getMetadata().getGeneration()))
            .isPresent();
  }

  /** Degraded (and Ready, where it said NoSpace) give the reason recovery stopped. */
  private static void sayNoSpaceStopped(EtcdClusterStatus status, String message) {
    for (Condition c : status.getConditions()) {
      boolean degraded = EtcdClusterStatusBuilder.DEGRADED.equals(c.getType());
      boolean ready =
          EtcdClusterStatusBuilder.READY.equals(c.getType())
              && EtcdClusterStatusBuilder.NO_SPACE.equals(c.getReason());
      if (degraded || ready) {
        c.setReason(MaintenanceExecutor.NO_SPACE_STOPPED);
        c.setMessage(message);
      }
    }
  }

  /**
   * A disaster recovery that cannot take its next step yet: says what it waits for (logged once per
   * change, and as the Ready condition's message), keeps recoveringFrom, and looks again.
   */
  private UpdateControl<EtcdCluster> waitToRecover(
      Context<EtcdCluster> context,
      EtcdCluster cluster,
      String reason,
      String message,
      Duration again) {
    EtcdClusterStatus status = statuses.blocked(cluster, reason, message);
    Condition before =
        Conditions.find(cluster.getStatus().getConditions(), EtcdClusterStatusBuilder.READY)
            .orElse(null);
    if (before == null
        || !reason.equals(before.getReason())
        || !message.equals(before.getMessage())) {
      LOG.info("{}: {}", reason, message);
    }
    return record(context, cluster, status).rescheduleAfter(again);
  }

  private static Duration nextLook(StepExecutor.Outcome outcome) {
    if (outcome.done()) {
      return Duration.ofMillis(500);
    }
    if (outcome.step() instanceof Step.Converged) {
      return HEALTH_INTERVAL;
    }
    return outcome.step() instanceof Step.QuorumLost
            || outcome.step() instanceof Step.MembersUnseen
            || outcome.step() instanceof Step.NoLeader
        ? Duration.ofSeconds(3)
        : Duration.ofSeconds(1);
  }

  /**
   * The client endpoints still worth a connection: members etcd lists and members with a Pod. The
   * clients of members that left (removed, replaced) are closed.
   */
  private Set<java.net.URI> inUse(ClusterRef ref, EtcdView view, MemberInventory inventory) {
    Set<String> names = new HashSet<>(inventory.pods().keySet());
    view.members().forEach(m -> names.add(m.name()));
    return names.stream()
        .filter(n -> dev.bosun.etcd.membership.MemberNames.isOurs(ref.name(), n))
        .map(n -> addressing.clientUrl(ref, n))
        .collect(java.util.stream.Collectors.toSet());
  }

  /** Members promoted while their Pod label lagged behind get it now (writes only on mismatch). */
  private static void labelVoters(
      StepExecutor executor, EtcdCluster cluster, EtcdView view, MemberInventory inventory) {
    for (ObservedMember m : view.members()) {
      Pod pod = inventory.pods().get(m.name());
      if (m.voter()
          && pod != null
          && pod.getMetadata().getDeletionTimestamp() == null
          && !"true".equals(pod.getMetadata().getLabels().get(EtcdOperator.VOTER_LABEL))) {
        executor.markVoter(cluster, m.name());
      }
    }
  }

  private ClusterRef ref(EtcdCluster cluster) {
    var tls = cluster.getSpec().getTls();
    return new ClusterRef(
        cluster.getMetadata().getNamespace(),
        cluster.getMetadata().getName(),
        tls != null && tls.getServerSecretName() != null,
        tls != null && tls.getPeerSecretName() != null);
  }

  /** Creates the Service, or puts back its selector and ports when someone changed them. */
  private void ensureService(
      KubernetesClient client, ChildCache<EtcdCluster> cache, Service desired, EtcdCluster owner) {
    desired.getMetadata().setOwnerReferences(Owners.of(owner));
    var resource =
        client
            .services()
            .inNamespace(desired.getMetadata().getNamespace())
            .withName(desired.getMetadata().getName());
    // Missing from the label-scoped cache: it may exist without the labels, so ask the server.
    Service live = cache.liveOf(desired).orElseGet(resource::get);
    if (live == null) {
      cache.written(resource.create(desired), null);
      return;
    }
    boolean same =
        Objects.equals(live.getSpec().getSelector(), desired.getSpec().getSelector())
            && Objects.equals(
                live.getSpec().getPorts().stream().map(p -> p.getName() + p.getPort()).toList(),
                desired.getSpec().getPorts().stream().map(p -> p.getName() + p.getPort()).toList())
            && Objects.equals(
                live.getSpec().getPublishNotReadyAddresses(),
                desired.getSpec().getPublishNotReadyAddresses());
    if (!same) {
      resource.edit(
          s -> {
            s.getSpec().setSelector(desired.getSpec().getSelector());
            s.getSpec().setPorts(desired.getSpec().getPorts());
            s.getSpec()
                .setPublishNotReadyAddresses(desired.getSpec().getPublishNotReadyAddresses());
            return s;
          });
    }
  }

  /** Events for the transitions of Ready and QuorumLost. */
  private void announce(EtcdCluster cluster, EtcdClusterStatus now) {
    EtcdClusterStatus previous = cluster.getStatus();
    Condition ready =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.READY).orElseThrow();
    Condition quorum =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.QUORUM_LOST).orElseThrow();
    var before =
        previous == null
            ? null
            : Conditions.find(previous.getConditions(), EtcdClusterStatusBuilder.QUORUM_LOST)
                .orElse(null);
    if ("True".equals(quorum.getStatus())
        && (before == null
            || !"True".equals(before.getStatus())
            || !quorum.getReason().equals(before.getReason()))) {
      LOG.warn("no quorum ({}): {}", quorum.getReason(), quorum.getMessage());
      events.warning(cluster, quorum.getReason(), quorum.getMessage());
    }
    if ("Unknown".equals(quorum.getStatus())
        && (before == null || !quorum.getReason().equals(before.getReason()))) {
      LOG.warn("members unreachable: {}", quorum.getMessage());
      events.warning(cluster, quorum.getReason(), quorum.getMessage());
    }
    announceRecovery(cluster, previous, now);
    Condition degraded =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.DEGRADED).orElseThrow();
    if (EtcdClusterStatusBuilder.NO_SPACE.equals(degraded.getReason())
        && !Conditions.sameStatusAndReason(
            previous == null ? null : previous.getConditions(),
            now.getConditions(),
            EtcdClusterStatusBuilder.DEGRADED)) {
      LOG.warn("NOSPACE: {}", degraded.getMessage());
      events.warning(cluster, EtcdClusterStatusBuilder.NO_SPACE, degraded.getMessage());
    }
    if (!sameReady(previous, now) && "True".equals(ready.getStatus())) {
      LOG.info("ready: {}", ready.getMessage());
      events.normal(cluster, "Ready", ready.getMessage());
    }
  }

  /** Disaster recovery's steps as Events: one per change of its condition's reason. */
  private void announceRecovery(
      EtcdCluster cluster, EtcdClusterStatus previous, EtcdClusterStatus now) {
    Condition dr = Conditions.find(now.getConditions(), DisasterRecovery.CONDITION).orElse(null);
    if (dr == null
        || Conditions.sameStatusAndReason(
            previous == null ? null : previous.getConditions(),
            now.getConditions(),
            DisasterRecovery.CONDITION)
        || QUIET_RECOVERY_REASONS.contains(dr.getReason())) {
      return;
    }
    if (WARNING_RECOVERY_REASONS.contains(dr.getReason())) {
      LOG.warn("{}: {}", dr.getReason(), dr.getMessage());
      events.warning(cluster, dr.getReason(), dr.getMessage());
    } else {
      LOG.info("{}: {}", dr.getReason(), dr.getMessage());
      events.normal(cluster, dr.getReason(), dr.getMessage());
    }
  }

  /** Reasons of the DisasterRecovery condition that are no news. */
  private static final Set<String> QUIET_RECOVERY_REASONS =
      Set.of("NotConfigured", "Standby", "QuorumNotConfirmedLost", "DataIntact");

  private static final Set<String> WARNING_RECOVERY_REASONS =
      Set.of("NoUsableSnapshot", "SnapshotTooOld", "Recovering");

  private static boolean sameReady(EtcdClusterStatus previous, EtcdClusterStatus now) {
    return Conditions.sameStatusAndReason(
        previous == null ? null : previous.getConditions(),
        now.getConditions(),
        EtcdClusterStatusBuilder.READY);
  }

  @Override
  public ErrorStatusUpdateControl<EtcdCluster> updateErrorStatus(
      EtcdCluster cluster, Context<EtcdCluster> context, Exception e) {
    // The blocked status keeps the stored one's fields, which the cached cluster holds.
    return FailedReconciles.record(
        cluster, context, e, m -> statuses.blocked(cluster, FailedReconciles.REASON, m));
  }
}
