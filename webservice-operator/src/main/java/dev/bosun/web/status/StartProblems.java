package dev.bosun.web.status;

import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Names what keeps a WebService's Pods from starting, from what the cluster already reports: the
 * ReplicaSet controller's refusal (the Deployment's ReplicaFailure condition), a container the
 * kubelet cannot configure, a Pod the scheduler cannot place, and the kubelet's FailedMount Events.
 * Pure: the reports in, a reason and a sentence naming the missing object out.
 *
 * <p>The kubelet, scheduler and API server name a missing object the same way ({@code configmap "x"
 * not found}, plural on some paths), so the object is read from their messages rather than guessed
 * from the spec: a reference the spec holds may well exist.
 */
public final class StartProblems {

  public static final String MISSING_CONFIG_MAP = "MissingConfigMap";
  public static final String MISSING_SECRET = "MissingSecret";
  public static final String MISSING_CONFIG_MAP_KEY = "MissingConfigMapKey";
  public static final String MISSING_SECRET_KEY = "MissingSecretKey";
  public static final String MISSING_CLAIM = "MissingClaim";
  public static final String MISSING_SERVICE_ACCOUNT = "MissingServiceAccount";
  public static final String UNSCHEDULABLE = "Unschedulable";
  public static final String VOLUME_MOUNT_FAILED = "VolumeMountFailed";
  public static final String POD_CREATION_REFUSED = "PodCreationRefused";

  /** Kubelet Event reasons about a Pod that explain why it has not started. */
  public static final Set<String> POD_EVENT_REASONS =
      Set.of("FailedMount", "FailedAttachVolume", "FailedScheduling");

  private static final Pattern CONFIG_MAP = Pattern.compile("configmaps? \"([^\"]+)\" not found");
  private static final Pattern SECRET = Pattern.compile("secrets? \"([^\"]+)\" not found");
  private static final Pattern CLAIM =
      Pattern.compile("persistentvolumeclaims? \"([^\"]+)\" not found");
  private static final Pattern SERVICE_ACCOUNT =
      Pattern.compile("serviceaccounts? \"([^\"]+)\" not found");
  private static final Pattern KEY =
      Pattern.compile("couldn't find key (\\S+) in (ConfigMap|Secret) (?:[^/\\s]+/)?(\\S+)");

  /** An object a Pod refers to, as a kubelet message names it when it does not exist. */
  private record Missing(Pattern pattern, String reason, String kind) {}

  private static final List<Missing> MISSING =
      List.of(
          new Missing(CONFIG_MAP, MISSING_CONFIG_MAP, "ConfigMap"),
          new Missing(SECRET, MISSING_SECRET, "Secret"),
          new Missing(CLAIM, MISSING_CLAIM, "PersistentVolumeClaim"));

  private static final Pattern QUOTA = Pattern.compile("exceeded quota: ([^,\\s]+)");
  private static final Pattern VOLUME = Pattern.compile("for volume \"([^\"]+)\"");

  private StartProblems() {}

  /**
   * Why the ReplicaSet controller cannot create Pods, from its FailedCreate message (the API
   * server's refusal): a missing ServiceAccount, an exhausted quota, or another admission refusal.
   */
  public static StartProblem ofRefusedCreate(String message) {
    String said = message == null ? "no reason given" : message;
    Matcher account = SERVICE_ACCOUNT.matcher(said);
    if (account.find()) {
      return new StartProblem(
          MISSING_SERVICE_ACCOUNT,
          "no Pod can be created: ServiceAccount "
              + account.group(1)
              + " does not exist; create it or change spec.serviceAccountName");
    }
    Matcher quota = QUOTA.matcher(said);
    if (quota.find()) {
      return new StartProblem(
          POD_CREATION_REFUSED,
          "no Pod can be created: ResourceQuota "
              + quota.group(1)
              + " is used up; raise it or free some of it (the API server said: "
              + bounded(said)
              + ")");
    }
    return new StartProblem(
        POD_CREATION_REFUSED,
        "no Pod can be created: the API server refuses them: " + bounded(said));
  }

  /**
   * The first Pod (in name order) that cannot start for a reason its status names: a container the
   * kubelet cannot configure (a missing ConfigMap, Secret or key), or a Pod the scheduler cannot
   * place (a missing claim among the reasons). Pods being deleted are past caring.
   */
  public static Optional<StartProblem> ofPods(Collection<Pod> pods) {
    return live(pods).map(StartProblems::ofPod).flatMap(Optional::stream).findFirst();
  }

  /**
   * The first kubelet or scheduler Event about one of {@code pods} that says why it has not
   * started, for Pods that are not ready: an Event about a Pod that has since become ready is
   * history.
   */
  public static Optional<StartProblem> ofEvents(Collection<Pod> pods, Collection<Event> events) {
    return live(pods)
        .filter(p -> !ready(p))
        .flatMap(
            p ->
                events.stream()
                    .filter(e -> POD_EVENT_REASONS.contains(e.getReason()))
                    .filter(e -> about(e, p))
                    .sorted(Comparator.comparing(StartProblems::when).reversed())
                    .limit(1)
                    .map(e -> ofEvent(p, e)))
        .findFirst();
  }

  /**
   * Whether some Pod is neither ready nor explained by its status (a missing object, or a waiting
   * reason such as a crash loop): only then may its Events say why.
   */
  public static boolean unexplained(Collection<Pod> pods) {
    return live(pods).anyMatch(p -> !ready(p))
        && ofPods(pods).isEmpty()
        && WebServiceStatusAggregator.podProblem(pods).isEmpty();
  }

  static Optional<StartProblem> ofPod(Pod pod) {
    String name = pod.getMetadata().getName();
    Optional<StartProblem> container =
        statuses(pod)
            .filter(cs -> waitingReason(cs).equals("CreateContainerConfigError"))
            .map(cs -> missingReference(cs.getState().getWaiting().getMessage(), name, cs))
            .flatMap(Optional::stream)
            .findFirst();
    if (container.isPresent()) {
      return container;
    }
    return Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> "Unschedulable".equals(c.getReason()))
        .findFirst()
        .map(c -> unschedulable(name, c.getMessage()));
  }

  private static Optional<StartProblem> missingReference(
      String message, String pod, ContainerStatus cs) {
    String where = " (container " + cs.getName() + " of Pod " + pod + ")";
    return missingObject(message, where, "; create it or fix the reference in env or envFrom");
  }

  private static StartProblem ofEvent(Pod pod, Event event) {
    String name = pod.getMetadata().getName();
    String message = event.getMessage() == null ? "" : event.getMessage();
    if ("FailedScheduling".equals(event.getReason())) {
      return unschedulable(name, message);
    }
    Matcher volume = VOLUME.matcher(message);
    String where =
        volume.find()
            ? " (volume " + volume.group(1) + " of Pod " + name + ")"
            : " (a volume of Pod " + name + ")";
    return missingObject(message, where, "; create it or fix the volume's reference")
        .orElse(
            new StartProblem(
                VOLUME_MOUNT_FAILED,
                "the Pods cannot start: a volume cannot be mounted"
                    + where
                    + ": "
                    + bounded(message)));
  }

  /** A missing ConfigMap, Secret, claim or key named in a kubelet message, with where it was. */
  private static Optional<StartProblem> missingObject(String message, String where, String fix) {
    String said = message == null ? "" : message;
    Matcher key = KEY.matcher(said);
    if (key.find()) {
      boolean configMap = key.group(2).equals("ConfigMap");
      return Optional.of(
          new StartProblem(
              configMap ? MISSING_CONFIG_MAP_KEY : MISSING_SECRET_KEY,
              "the Pods cannot start: "
                  + key.group(2)
                  + " "
                  + key.group(3)
                  + " has no key "
                  + key.group(1)
                  + where
                  + "; add the key or fix the reference"));
    }
    for (Missing missing : MISSING) {
      Matcher m = missing.pattern().matcher(said);
      if (m.find()) {
        return Optional.of(
            new StartProblem(
                missing.reason(),
                "the Pods cannot start: "
                    + missing.kind()
                    + " "
                    + m.group(1)
                    + " does not exist"
                    + where
                    + fix));
      }
    }
    return Optional.empty();
  }

  private static StartProblem unschedulable(String pod, String message) {
    String said = message == null ? "" : message;
    Matcher claim = CLAIM.matcher(said);
    if (claim.find()) {
      return new StartProblem(
          MISSING_CLAIM,
          "the Pods cannot be scheduled: PersistentVolumeClaim "
              + claim.group(1)
              + " does not exist (Pod "
              + pod
              + "); create it or fix the volume's claimName");
    }
    return new StartProblem(
        UNSCHEDULABLE,
        "the Pods cannot be scheduled (Pod " + pod + "): the scheduler said: " + bounded(said));
  }

  private static Stream<Pod> live(Collection<Pod> pods) {
    return pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null)
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()));
  }

  private static Stream<ContainerStatus> statuses(Pod pod) {
    return Stream.concat(
        Optional.ofNullable(pod.getStatus().getInitContainerStatuses()).orElse(List.of()).stream(),
        Optional.ofNullable(pod.getStatus().getContainerStatuses()).orElse(List.of()).stream());
  }

  private static String waitingReason(ContainerStatus cs) {
    return cs.getState() == null
            || cs.getState().getWaiting() == null
            || cs.getState().getWaiting().getReason() == null
        ? ""
        : cs.getState().getWaiting().getReason();
  }

  private static boolean ready(Pod pod) {
    return Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean about(Event event, Pod pod) {
    var involved = event.getInvolvedObject();
    return involved != null
        && "Pod".equals(involved.getKind())
        && pod.getMetadata().getName().equals(involved.getName())
        && (involved.getUid() == null || involved.getUid().equals(pod.getMetadata().getUid()));
  }

  /** The Event's last occurrence, for the newest first; an Event without a time sorts last. */
  private static String when(Event event) {
    String at =
        event.getLastTimestamp() != null
            ? event.getLastTimestamp()
            : event.getEventTime() == null ? null : event.getEventTime().getTime();
    return at == null ? "" : at;
  }

  private static String bounded(String message) {
    return HumanMessages.bounded(message, HumanMessages.MAX_LENGTH / 2);
  }
}
