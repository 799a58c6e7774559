package dev.bosun.web.status;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;

import dev.bosun.common.meta.Labels;
import dev.bosun.common.status.ConditionTable;
import dev.bosun.common.status.ConditionTypes;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.HumanText;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Turns what the cluster shows (the Deployment, its Pods, the Service) into the WebService's
 * status: counts, URL and the fixed condition types Ready, Available, Progressing and Degraded.
 * Pure: the same inputs give the same status, so an unchanged cluster produces no write.
 */
public final class WebServiceStatusAggregator {

  public static final String READY = ConditionTypes.READY;
  public static final String AVAILABLE = ConditionTypes.AVAILABLE;
  public static final String PROGRESSING = ConditionTypes.PROGRESSING;
  public static final String DEGRADED = ConditionTypes.DEGRADED;

  /** Container waiting reasons that will not fix themselves: a person must act. */
  static final Set<String> POD_PROBLEMS =
      Set.of(
          "ImagePullBackOff",
          "ErrImagePull",
          "InvalidImageName",
          "CrashLoopBackOff",
          "CreateContainerConfigError",
          "CreateContainerError",
          "RunContainerError");

  private final Clock clock;

  public WebServiceStatusAggregator(Clock clock) {
    this.clock = clock;
  }

  /** The status a WebService should carry given what was observed. */
  public WebServiceStatus aggregate(
      WebService ws,
      Optional<Deployment> deployment,
      Optional<Service> service,
      Collection<Pod> pods) {
    return aggregate(ws, deployment, service, pods, Optional.empty());
  }

  /**
   * The same, for a WebService in a gray release: {@code rollout} is what its status records about
   * the release, and overrides Ready and Progressing (and Degraded after an abort) while it runs.
   */
  public WebServiceStatus aggregate(
      WebService ws,
      Optional<Deployment> deployment,
      Optional<Service> service,
      Collection<Pod> pods,
      Optional<RolloutView> rollout) {
    return aggregate(ws, deployment, service, pods, List.of(), rollout);
  }

  /**
   * The same, with the kubelet's and scheduler's Events about the Pods (read only when the Pods'
   * own status does not explain why they are not ready), which name a volume that cannot mount.
   */
  public WebServiceStatus aggregate(
      WebService ws,
      Optional<Deployment> deployment,
      Optional<Service> service,
      Collection<Pod> pods,
      Collection<Event> podEvents,
      Optional<RolloutView> rollout) {
    WebServiceStatus previous = ws.getStatus();
    WebServiceStatus status = new WebServiceStatus();
    status.setObservedGeneration(Conditions.generationOf(ws));
    status.setSelector(
        Labels.render(Labels.selector(ws, WebServiceOperator.APP, WebServiceOperator.COMPONENT)));
    status.setUrl(service.map(s -> url(ws, s)).orElse(null));
    Facts facts = facts(ws, deployment, pods, podEvents, rollout);
    status.setReplicas(facts.replicas());
    status.setReadyReplicas(facts.ready());
    status.setUpdatedReplicas(facts.updated());
    status.setAvailableReplicas(facts.available());
    rollout.ifPresent(r -> status.setRollout(r.status()));
    status.setConditions(
        CONDITIONS.conditions(
            facts, previous == null ? null : previous.getConditions(), ws, clock));
    return status;
  }

  /**
   * What the conditions are decided from: the Deployment's counts and conditions, why Pods do not
   * start, and what a gray release decides while it runs.
   */
  private record Facts(
      boolean deploymentExists,
      int desired,
      int replicas,
      int ready,
      int updated,
      int available,
      boolean rolledOut,
      boolean deploymentAvailable,
      Optional<DeploymentCondition> deadline,
      Optional<StartProblem> startProblem,
      Integer progressDeadlineSeconds,
      Optional<RolloutView> rollout) {

    /** The release's own condition of a type while it decides them, else empty. */
    Optional<DesiredCondition> released(Function<RolloutView, DesiredCondition> which) {
      return rollout.filter(r -> r.ready() != null).map(which);
    }
  }

  private static Facts facts(
      WebService ws,
      Optional<Deployment> deployment,
      Collection<Pod> pods,
      Collection<Event> podEvents,
      Optional<RolloutView> rollout) {
    DeploymentStatus ds = deployment.map(Deployment::getStatus).orElse(new DeploymentStatus());
    int desired = deployment.map(d -> d.getSpec().getReplicas()).orElse(ws.getSpec().getReplicas());
    int replicas = orZero(ds.getReplicas());
    int ready = orZero(ds.getReadyReplicas());
    int updated = orZero(ds.getUpdatedReplicas());
    int available = orZero(ds.getAvailableReplicas());
    // Complete only when no old pod is left: availableReplicas alone counts old pods mid-rollout.
    boolean rolledOut =
        observedLatest(ws, deployment, ds)
            && updated == desired
            && ready == desired
            && available == desired
            && replicas == desired;
    Optional<DeploymentCondition> replicaFailure =
        deploymentCondition(deployment, "ReplicaFailure").filter(c -> "True".equals(c.getStatus()));
    // The most specific report first: a Pod's own status, then the ReplicaSet controller's refusal
    // to create Pods, then the Events about Pods that are not ready.
    Optional<StartProblem> startProblem =
        StartProblems.ofPods(pods)
            .or(() -> podProblem(pods).map(p -> new StartProblem(p[0], p[1])))
            .or(() -> replicaFailure.map(c -> StartProblems.ofRefusedCreate(c.getMessage())))
            .or(() -> StartProblems.ofEvents(pods, podEvents));
    return new Facts(
        deployment.isPresent(),
        desired,
        replicas,
        ready,
        updated,
        available,
        rolledOut,
        deploymentCondition(deployment, "Available")
            .map(c -> "True".equals(c.getStatus()))
            .orElse(false),
        deploymentCondition(deployment, "Progressing")
            .filter(c -> "ProgressDeadlineExceeded".equals(c.getReason())),
        startProblem,
        ws.getSpec().getProgressDeadlineSeconds(),
        rollout);
  }

  /** Whether the Deployment's controller has seen the Deployment written for this generation. */
  private static boolean observedLatest(
      WebService ws, Optional<Deployment> deployment, DeploymentStatus ds) {
    return deployment.isPresent()
        && String.valueOf(Conditions.generationOf(ws))
            .equals(
                deployment
                    .get()
                    .getMetadata()
                    .getAnnotations()
                    .get(WebServiceOperator.SPEC_GENERATION))
        && ds.getObservedGeneration() != null
        && ds.getObservedGeneration() >= deployment.get().getMetadata().getGeneration();
  }

  private static final ConditionTable<Facts> CONDITIONS =
      ConditionTable.<Facts>builder()
          .row(READY, WebServiceStatusAggregator::ready)
          .row(AVAILABLE, WebServiceStatusAggregator::available)
          .row(PROGRESSING, WebServiceStatusAggregator::progressing)
          .row(DEGRADED, WebServiceStatusAggregator::degraded)
          .build();

  private static DesiredCondition ready(Facts f) {
    Optional<DesiredCondition> released = f.released(RolloutView::ready);
    if (released.isPresent()) {
      return released.get();
    }
    // The Deployment's own Degraded, not a release's: a release that decides Degraded decides
    // Ready too.
    DesiredCondition degraded = deploymentDegraded(f);
    boolean isDegraded = DesiredCondition.TRUE.equals(degraded.status());
    if (f.rolledOut() && !isDegraded) {
      return isTrue(
          READY, "Ready", HumanText.format("all {} replicas are updated and ready", f.desired()));
    }
    if (isDegraded) {
      return isFalse(READY, degraded.reason(), degraded.message());
    }
    if (!f.deploymentExists()) {
      return isFalse(READY, "Creating", "the Deployment is being created");
    }
    return isFalse(READY, "RollingOut", progressMessage(f));
  }

  private static DesiredCondition available(Facts f) {
    if (!f.deploymentExists()) {
      return isFalse(AVAILABLE, "DeploymentMissing", "the Deployment is being created");
    }
    String message = HumanText.format("{} of {} replicas available", f.available(), f.desired());
    return f.deploymentAvailable() && (f.available() > 0 || f.desired() == 0)
        ? isTrue(AVAILABLE, "MinimumReplicasAvailable", message)
        : isFalse(AVAILABLE, "MinimumReplicasUnavailable", message);
  }

  private static DesiredCondition progressing(Facts f) {
    Optional<DesiredCondition> released = f.released(RolloutView::progressing);
    if (released.isPresent()) {
      return released.get();
    }
    if (f.deadline().isPresent()) {
      return isFalse(PROGRESSING, "ProgressDeadlineExceeded", f.deadline().get().getMessage());
    }
    if (!f.rolledOut()) {
      return isTrue(PROGRESSING, "RollingOut", progressMessage(f));
    }
    return isFalse(
        PROGRESSING,
        "RolloutComplete",
        HumanText.format("all {} replicas are updated and ready", f.desired()));
  }

  private static DesiredCondition degraded(Facts f) {
    return f.released(RolloutView::degraded).orElseGet(() -> deploymentDegraded(f));
  }

  /** Degraded as the Deployment and its Pods show it. */
  private static DesiredCondition deploymentDegraded(Facts f) {
    if (f.startProblem().isPresent()) {
      return isTrue(DEGRADED, f.startProblem().get().reason(), f.startProblem().get().message());
    }
    if (f.deadline().isPresent()) {
      return isTrue(
          DEGRADED,
          "ProgressDeadlineExceeded",
          HumanText.format(
              "the rollout made no progress for {}s: {}",
              f.progressDeadlineSeconds(),
              f.deadline().get().getMessage()));
    }
    return isFalse(DEGRADED, "AsExpected", "no problem observed");
  }

  private static String progressMessage(Facts f) {
    return HumanText.format(
        "{} of {} replicas updated, {} ready, {} in total",
        f.updated(),
        f.desired(),
        f.ready(),
        f.replicas());
  }

  /** The status of a WebService whose spec cannot be acted on; counts are kept as they were. */
  public WebServiceStatus blocked(WebService ws, String reason, String message) {
    long generation = Conditions.generationOf(ws);
    WebServiceStatus previous = ws.getStatus() == null ? new WebServiceStatus() : ws.getStatus();
    WebServiceStatus status = new WebServiceStatus();
    status.setObservedGeneration(generation);
    status.setReplicas(previous.getReplicas());
    status.setReadyReplicas(previous.getReadyReplicas());
    status.setUpdatedReplicas(previous.getUpdatedReplicas());
    status.setAvailableReplicas(previous.getAvailableReplicas());
    status.setSelector(previous.getSelector());
    status.setUrl(previous.getUrl());
    status.setRollout(previous.getRollout());
    List<DesiredCondition> desired =
        List.of(
            isFalse(READY, reason, message),
            Conditions.carried(
                previous.getConditions(),
                AVAILABLE,
                DesiredCondition.isUnknown(AVAILABLE, "NotObserved", "not observed yet")),
            isFalse(PROGRESSING, reason, "nothing is rolled out until the spec is fixed"),
            isTrue(DEGRADED, reason, message));
    status.setConditions(Conditions.merge(previous.getConditions(), desired, generation, clock));
    return status;
  }

  private static Optional<DeploymentCondition> deploymentCondition(
      Optional<Deployment> deployment, String type) {
    return deployment
        .map(Deployment::getStatus)
        .map(DeploymentStatus::getConditions)
        .flatMap(cs -> cs.stream().filter(c -> type.equals(c.getType())).findFirst());
  }

  /** The first container problem among the pods, as {reason, message}, pods in name order. */
  public static Optional<String[]> podProblem(Collection<Pod> pods) {
    return pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null)
        .sorted((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()))
        .flatMap(
            p ->
                Optional.ofNullable(p.getStatus().getContainerStatuses()).orElse(List.of()).stream()
                    .map(cs -> problemOf(p, cs))
                    .flatMap(Optional::stream))
        .findFirst();
  }

  private static Optional<String[]> problemOf(Pod pod, ContainerStatus cs) {
    ContainerStateWaiting waiting = cs.getState() == null ? null : cs.getState().getWaiting();
    if (waiting != null && POD_PROBLEMS.contains(waiting.getReason())) {
      // The kubelet's message can be long (a registry's answer): kept to one bounded line.
      String detail =
          waiting.getMessage() == null
              ? ""
              : ": " + HumanMessages.bounded(waiting.getMessage(), HumanMessages.MAX_LENGTH / 2);
      ContainerStateTerminated last =
          cs.getLastState() == null ? null : cs.getLastState().getTerminated();
      if (last != null && last.getExitCode() != null) {
        detail += " (last exit code " + last.getExitCode() + ")";
      }
      return Optional.of(
          new String[] {
            waiting.getReason(),
            "pod "
                + pod.getMetadata().getName()
                + ", container "
                + cs.getName()
                + ": "
                + waiting.getReason()
                + detail
          });
    }
    return Optional.empty();
  }

  /**
   * Where the service answers: its Ingress host, the load balancer's address once known, or inside
   * the cluster.
   */
  static String url(WebService ws, Service service) {
    var route = ws.getSpec().getIngress();
    if (route != null) {
      String path =
          route.getPaths() == null || route.getPaths().isEmpty()
              ? "/"
              : route.getPaths().get(0).getPath();
      return (route.getTlsSecretName() != null ? "https" : "http") + "://" + route.getHost() + path;
    }
    List<ServicePort> ports = service.getSpec().getPorts();
    if (ports == null || ports.isEmpty()) {
      return null;
    }
    ServicePort first = ports.get(0);
    String scheme =
        first.getName().startsWith("https") || first.getPort() == 443 ? "https" : "http";
    var lb = service.getStatus() == null ? null : service.getStatus().getLoadBalancer();
    if (lb != null && lb.getIngress() != null && !lb.getIngress().isEmpty()) {
      var ingress = lb.getIngress().get(0);
      String host = ingress.getHostname() != null ? ingress.getHostname() : ingress.getIp();
      return scheme + "://" + host + ":" + first.getPort();
    }
    return scheme
        + "://"
        + ws.getMetadata().getName()
        + "."
        + ws.getMetadata().getNamespace()
        + ".svc:"
        + first.getPort();
  }

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }
}
