package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.plan.Rebuilds;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Why a member that does not answer over SQL is down, from what its Pod says (the Pod informer, no
 * extra request): a server that keeps exiting at start. MariaDB 10.11's crash recovery can fail for
 * good after a kill under load (an InnoDB assertion in trx0purge.cc, module README "Crash recovery
 * of the server itself"); such a member crash-loops until its data directory is cleared, so the
 * sentence says what to look for and what to do.
 */
final class ServerCrashes {

  /**
   * The members whose server cannot finish crash recovery ({@link #recoveryFailure}), by Pod name,
   * when the same Pod template runs a ready server elsewhere: a template every member fails on is a
   * setting to fix, not a volume to replace.
   */
  static Map<String, String> unrecoverable(List<Pod> pods) {
    Map<String, String> out = new TreeMap<>();
    for (Pod pod : pods) {
      recoveryFailure(pod)
          .filter(evidence -> pods.stream().anyMatch(p -> p != pod && sameTemplateReady(p, pod)))
          .ifPresent(evidence -> out.put(pod.getMetadata().getName(), evidence));
    }
    return out;
  }

  private static boolean sameTemplateReady(Pod other, Pod pod) {
    String revision = "controller-revision-hash";
    return Objects.equals(label(other, revision), label(pod, revision))
        && other.getStatus() != null
        && other.getStatus().getContainerStatuses() != null
        && other.getStatus().getContainerStatuses().stream()
            .anyMatch(s -> "mysql".equals(s.getName()) && Boolean.TRUE.equals(s.getReady()));
  }

  private static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }

  /** Restarts after which a server that exits each time is called crash-looping. */
  static final int CRASH_LOOP_RESTARTS = 3;

  private ServerCrashes() {}

  /** A sentence per crash-looping database Pod, by Pod name. */
  static Map<String, String> describe(List<Pod> pods) {
    Map<String, String> out = new TreeMap<>();
    for (Pod pod : pods) {
      describe(pod).ifPresent(s -> out.put(pod.getMetadata().getName(), s));
    }
    return out;
  }

  /** The sentence for one Pod whose server keeps exiting, or empty. */
  static Optional<String> describe(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getContainerStatuses().stream()
        .filter(s -> "mysql".equals(s.getName()))
        .findFirst()
        .flatMap(ServerCrashes::crashLoop);
  }

  /**
   * What shows that {@code pod}'s server cannot finish crash recovery: a crash loop whose last exit
   * left InnoDB's own words in the container's termination message (the StatefulSet's {@code
   * FallbackToLogsOnError} puts the log's tail there). Only the kind of failure is named, never the
   * log text, which can hold table names a tenant chose. Empty for any other crash loop (a bad
   * setting, memory), which a new volume would not cure.
   */
  static Optional<String> recoveryFailure(Pod pod) {
    if (describe(pod).isEmpty()) {
      return Optional.empty();
    }
    ContainerStateTerminated last =
        pod.getStatus().getContainerStatuses().stream()
            .filter(s -> "mysql".equals(s.getName()))
            .findFirst()
            .map(s -> s.getLastState().getTerminated())
            .orElse(null);
    String log = last == null || last.getMessage() == null ? "" : last.getMessage();
    return RECOVERY_FAILURES.entrySet().stream()
        .filter(e -> log.contains(e.getKey()))
        .findFirst()
        .map(
            e ->
                "its server cannot finish crash recovery: at every start InnoDB "
                    + e.getValue()
                    + " (last exit code "
                    + last.getExitCode()
                    + ")");
  }

  /** Marks of InnoDB failing at start on its own files, and what each says, in words. */
  private static final Map<String, String> RECOVERY_FAILURES = recoveryFailures();

  private static Map<String, String> recoveryFailures() {
    Map<String, String> marks = new LinkedHashMap<>();
    // Not "Plugin initialization aborted" alone: a setting the server refuses (memory, a log
    // size) aborts it too, and only corruption is cured by a new volume.
    marks.put("Failing assertion", "fails an assertion");
    marks.put("Assertion failure", "fails an assertion");
    marks.put("Data structure corruption", "finds its files corrupt");
    marks.put("Database page corruption", "finds a corrupt page");
    return marks;
  }

  private static Optional<String> crashLoop(ContainerStatus s) {
    int restarts = s.getRestartCount() == null ? 0 : s.getRestartCount();
    boolean waitingAfterCrash =
        s.getState() != null
            && s.getState().getWaiting() != null
            && "CrashLoopBackOff".equals(s.getState().getWaiting().getReason());
    if (restarts < CRASH_LOOP_RESTARTS && !waitingAfterCrash) {
      return Optional.empty();
    }
    ContainerStateTerminated last =
        s.getLastState() == null ? null : s.getLastState().getTerminated();
    if (last == null || last.getExitCode() == null || last.getExitCode() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        "its server keeps exiting at start ("
            + restarts
            + (restarts == 1 ? " restart" : " restarts")
            + ", last exit code "
            + last.getExitCode()
            + exitMeaning(last.getExitCode())
            + "). If its log shows InnoDB failing during crash recovery (MariaDB's trx0purge.cc"
            + " assertion, a corrupt page), its data directory cannot be recovered: with"
            + " spec.replication.rebuild Automatic, or the annotation "
            + Rebuilds.REQUEST_ANNOTATION
            + " naming it, the operator gives a replica a new volume, keeps the old one and copies"
            + " a healthy replica into it; it never deletes data itself");
  }

  private static String exitMeaning(int code) {
    return switch (code) {
      case 134 -> ": aborted, as on a failed assertion";
      case 137 -> ": killed";
      case 139 -> ": crashed";
      case 1 -> ": an error at start";
      default -> "";
    };
  }

  /**
   * Why each member is unreachable: the crash the kubelet reported, which says more than the
   * connection error it causes, else what the operator's connection got back.
   */
  static Map<String, String> orConnectionErrors(
      Map<String, String> crashes, Map<String, String> connectionErrors) {
    Map<String, String> why = new TreeMap<>(connectionErrors);
    why.putAll(crashes);
    return why;
  }
}
