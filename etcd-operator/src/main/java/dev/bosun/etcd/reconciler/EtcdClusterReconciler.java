package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.PrimaryDeletions;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdClients;
import dev.bosun.etcd.client.EtcdConnections;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.objects.MemberBudget;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MembershipPlanner;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
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
  private final MembershipChoice membership;
  private final BootstrapRestore bootstrap;
  private final OldClusterTeardown teardown;
  private final ClusterMaintenance maintenance;
  private final ClusterAnnouncements announcements;
  private final MembershipStepRun steps;

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
    this.membership = new MembershipChoice(addressing, clock);
    this.bootstrap = new BootstrapRestore(restoreSources);
    this.teardown = new OldClusterTeardown(statuses, events);
    this.maintenance = new ClusterMaintenance(addressing, events, clock);
    this.announcements = new ClusterAnnouncements(events);
    this.steps = new MembershipStepRun(addressing, events, operatorImage);
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
    List<EventSource<?, EtcdCluster>> sources = new ArrayList<>(ClusterInformers.of(context));
    // What is kept per cluster between rounds goes with the cluster, with no finalizer.
    sources.add(new PrimaryDeletions<EtcdCluster>("etcd-cluster-deletions", this::forget));
    return sources;
  }

  /** Forgets what this operator keeps for a deleted cluster: its etcd clients close at once. */
  void forget(EtcdCluster cluster) {
    connections.forget(cluster.getMetadata().getUid());
  }

  @Override
  public UpdateControl<EtcdCluster> reconcile(EtcdCluster cached, Context<EtcdCluster> context) {
    try {
      // Every status write goes through CachedStatusWrites, so the cluster JOSDK hands over is
      // never older than this operator's own last write: its recovery and quorum bookkeeping can
      // be trusted without a GET.
      return reconcileCluster(new Round(cached, context, new ChildCache<>(context), ref(cached)));
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

  /** The cluster one reconcile works on, and where it reads and writes. */
  private record Round(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      ChildCache<EtcdCluster> cache,
      ClusterRef ref) {

    KubernetesClient client() {
      return context.getClient();
    }

    EtcdClusterStatus previous() {
      return cluster.getStatus();
    }
  }

  private UpdateControl<EtcdCluster> reconcileCluster(Round r) {
    MemberInventory inventory = MemberInventory.cached(r.cache(), r.cluster());
    List<String> problems = specProblems(r.cluster(), inventory);
    if (!problems.isEmpty()) {
      return invalidSpec(r, problems);
    }
    try {
      ServiceRepair.ensure(ChildApplier.of(r.client(), r.cache()), r.cluster());
    } catch (Applier.ForeignObjectException e) {
      return blocked(r, "ResourceConflict", e.getMessage());
    }
    EtcdClients clients;
    try {
      clients = connections.of(r.client(), r.cluster());
    } catch (IllegalArgumentException e) {
      return blocked(r, "TlsSecretUnusable", e.getMessage());
    }
    EtcdMembership etcd = new EtcdMembership(clients);
    if (recovering(r.previous()) && r.previous().getClusterId() != null) {
      // A recovery's intent is recorded: take the old cluster apart, one safe step a round.
      return teardown.next(r.cluster(), r.context());
    }
    EtcdView view = membership.observe(r.cluster(), r.ref(), etcd, inventory);
    ensureBudget(r, view);
    VolumeStamps.ensure(r.client(), r.cluster(), view, inventory);
    Planned chosen = membership.choose(r.cluster(), r.ref(), r.client(), etcd, view, inventory);
    Planned planned =
        ResumedPeerUrls.check(r.ref(), addressing, bootstrap.find(r.cluster(), r.client(), chosen));
    DisasterRecovery.Decision recovery = recoveryDecision(r, planned.step());
    if (recovery instanceof DisasterRecovery.Start start) {
      return recordRecoveryIntent(r, planned, start);
    }
    StepExecutor.Outcome outcome =
        steps.run(r.client(), etcd, clients, r.cluster(), r.ref(), planned);
    return recordStatus(r, etcd, planned, recovery, outcome);
  }

  /** What the schema cannot check (empty when the spec is valid). */
  private static List<String> specProblems(EtcdCluster cluster, MemberInventory inventory) {
    return EtcdClusterValidator.validate(
        cluster.getMetadata().getName(), cluster.getSpec(), inventory.runningVersions());
  }

  /** An invalid spec changes nothing and waits for a fix. */
  private UpdateControl<EtcdCluster> invalidSpec(Round r, List<String> problems) {
    String message = "invalid spec: " + String.join("; ", problems);
    EtcdClusterStatus status = statuses.blocked(r.cluster(), INVALID_SPEC, message);
    if (!ClusterAnnouncements.sameReady(r.previous(), status)) {
      LOG.warn("{}: {}", INVALID_SPEC, message);
      events.warning(r.cluster(), INVALID_SPEC, message);
    }
    // No reschedule: the next spec change brings us back; nothing is changed meanwhile.
    return record(r, status);
  }

  /** An unusable TLS Secret or a taken Service name stops the round; it is looked at again. */
  private UpdateControl<EtcdCluster> blocked(Round r, String reason, String why) {
    // The refusing side's own sentence, bounded: it may quote a parser's reason.
    String message = HumanMessages.bounded(why, HumanMessages.MAX_LENGTH);
    EtcdClusterStatus status = statuses.blocked(r.cluster(), reason, message);
    if (!ClusterAnnouncements.sameReady(r.previous(), status)) {
      events.warning(r.cluster(), reason, message);
    }
    return record(r, status).rescheduleAfter(Duration.ofSeconds(10));
  }

  /** The budget that keeps a quorum through voluntary disruptions. */
  private void ensureBudget(Round r, EtcdView view) {
    pdbs.ensure(
        r.client(),
        r.cluster(),
        MemberBudget.minAvailable(view, r.previous(), r.cluster().getSpec().getSize()),
        r.cache().named(GenericKubernetesResource.class, r.cluster().getMetadata().getName()));
  }

  /** What disaster recovery makes of the step: a lost quorum past its grace may start one. */
  private DisasterRecovery.Decision recoveryDecision(Round r, Step step) {
    EtcdCluster cluster = r.cluster();
    return DisasterRecovery.forRound(
        cluster,
        step,
        clock.instant(),
        () ->
            restoreSources.newest(
                r.client(),
                cluster.getMetadata().getNamespace(),
                cluster.getSpec().getDisasterRecovery().getRestoreFromBackup()));
  }

  /**
   * Intent first: the recovery is recorded before anything is stopped, so an operator that dies at
   * any later point resumes it instead of finding members gone and nothing said.
   */
  private UpdateControl<EtcdCluster> recordRecoveryIntent(
      Round r, Planned planned, DisasterRecovery.Start start) {
    EtcdClusterStatus status = statusOf(r, planned, planned.step(), start.condition());
    status.setRecoveringFrom(start.source().location());
    announcements.announce(r.cluster(), status);
    return record(r, status).rescheduleAfter(Duration.ofSeconds(1));
  }

  static boolean recovering(EtcdClusterStatus status) {
    return status != null && status.getRecoveringFrom() != null;
  }

  /** What a disaster recovery waits for while old member Pods are still there. */
  static String waitingForOldMembers(String from, Collection<Pod> pods) {
    return OldClusterTeardown.waitingForOldMembers(from, pods);
  }

  /** The status this round observed, after {@code step}, with the disaster recovery condition. */
  private EtcdClusterStatus statusOf(
      Round r, Planned planned, Step step, DesiredCondition recovery) {
    return statuses.build(
        r.cluster(),
        r.ref(),
        addressing,
        planned.view(),
        planned.inventory().resources(),
        step,
        recovery);
  }

  /**
   * Maintenance when converged, then the status (written only when it changed) and when to look
   * again.
   */
  private UpdateControl<EtcdCluster> recordStatus(
      Round r,
      EtcdMembership etcd,
      Planned planned,
      DisasterRecovery.Decision recovery,
      StepExecutor.Outcome outcome) {
    EtcdClusterStatus status = statusOf(r, planned, outcome.step(), recovery.condition());
    // Also when the operator died between creating the restored member's Pod and this write.
    status.setRestoredFrom(
        EtcdClusterStatusBuilder.restoredFrom(
            r.previous(),
            outcome.done() && planned.restore().isPresent()
                ? planned.restore().get().location()
                : null,
            planned.inventory().pods().values()));
    if (recovering(r.previous()) && status.getClusterId() == null) {
      // Until the restored member answers, a restart must still restore, never start empty.
      status.setRecoveringFrom(r.previous().getRecoveringFrom());
    }
    boolean maintained =
        maintenance.maintain(r.cluster(), r.ref(), etcd, planned.view(), outcome.step(), status);
    announcements.announce(r.cluster(), status);
    Duration next = maintained ? Duration.ofMillis(500) : nextLook(outcome);
    return record(r, status).rescheduleAfter(next);
  }

  /** Writes the status when it changed, into JOSDK's cache as well; the caller says when next. */
  private static UpdateControl<EtcdCluster> record(Round r, EtcdClusterStatus status) {
    CachedStatusWrites.applyIfChanged(r.cluster(), status, r.context());
    return UpdateControl.noUpdate();
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

  private static ClusterRef ref(EtcdCluster cluster) {
    var tls = cluster.getSpec().getTls();
    return new ClusterRef(
        cluster.getMetadata().getNamespace(),
        cluster.getMetadata().getName(),
        tls != null && tls.getServerSecretName() != null,
        tls != null && tls.getPeerSecretName() != null);
  }

  @Override
  public ErrorStatusUpdateControl<EtcdCluster> updateErrorStatus(
      EtcdCluster cluster, Context<EtcdCluster> context, Exception e) {
    // The blocked status keeps the stored one's fields, which the cached cluster holds.
    return FailedReconciles.record(
        cluster, context, e, m -> statuses.blocked(cluster, FailedReconciles.REASON, m));
  }
}
