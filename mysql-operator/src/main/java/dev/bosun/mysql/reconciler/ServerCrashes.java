package dev.bosun.mysql.reconciler;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
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
            + "). If its log shows an InnoDB assertion during crash recovery (MariaDB's"
            + " trx0purge.cc fault), its data directory cannot be recovered: clear it (delete the"
            + " member's PersistentVolumeClaim and Pod) and the empty member is rebuilt or catches"
            + " up; the operator never deletes data itself");
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
}
