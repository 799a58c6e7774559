package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.testing.MariaDbServers;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A database Pod whose server keeps exiting is named, with what to look for and do. */
class ServerCrashesTest {

  private static Pod pod(String name, int restarts, Integer lastExit, String waiting) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .addNewContainerStatus()
        .withName("mysql")
        .withRestartCount(restarts)
        .withNewState()
        .withNewWaiting()
        .withReason(waiting)
        .endWaiting()
        .endState()
        .withNewLastState()
        .withNewTerminated()
        .withExitCode(lastExit)
        .endTerminated()
        .endLastState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void aServerAbortingAtEveryStartIsNamedWithTheFaultToLookForAndWhatToDo() {
    var crashes = ServerCrashes.describe(List.of(pod("db-1", 5, 134, "CrashLoopBackOff")));
    assertThat(crashes).containsOnlyKeys("db-1");
    assertThat(crashes.get("db-1"))
        .contains("keeps exiting at start", "5 restarts", "exit code 134: aborted")
        .contains("trx0purge.cc", "new volume, keeps the old one", "never deletes data itself");
  }

  @Test
  void aSingleRestartOrACleanExitIsNoCrashLoop() {
    assertThat(ServerCrashes.describe(pod("db-1", 1, 137, "ContainerCreating"))).isEmpty();
    assertThat(ServerCrashes.describe(pod("db-1", 4, 0, null))).isEmpty();
    assertThat(
            ServerCrashes.describe(
                new PodBuilder().withNewMetadata().withName("db-2").endMetadata().build()))
        .isEmpty();
  }

  @Test
  void crashLoopBackOffCountsFromTheFirstRestart() {
    assertThat(ServerCrashes.describe(pod("db-0", 1, 1, "CrashLoopBackOff")))
        .hasValueSatisfying(s -> assertThat(s).contains("(1 restart,", "an error at start"));
  }

  private static Pod withLog(Pod pod, String revision, String log) {
    pod.getMetadata().setLabels(java.util.Map.of("controller-revision-hash", revision));
    pod.getStatus().getContainerStatuses().get(0).getLastState().getTerminated().setMessage(log);
    return pod;
  }

  private static Pod ready(String name, String revision) {
    Pod pod = pod(name, 0, null, null);
    pod.getMetadata().setLabels(java.util.Map.of("controller-revision-hash", revision));
    pod.getStatus().getContainerStatuses().get(0).setReady(true);
    return pod;
  }

  @Test
  void corruptionInTheLogTailOfACrashLoopIsEvidenceWithoutTheLogText() {
    Pod crashing =
        withLog(pod("db-2", 4, 1, "CrashLoopBackOff"), "r1", MariaDbServers.CORRUPT_REDO_LOG_TAIL);
    assertThat(ServerCrashes.recoveryFailure(crashing))
        .hasValue(
            "its server cannot finish crash recovery: at every start InnoDB finds its files"
                + " corrupt (last exit code 1)");
    Pod assertion =
        withLog(
            pod("db-2", 3, 134, "CrashLoopBackOff"),
            "r1",
            "InnoDB: Assertion failure in file trx0purge.cc line 1234\nInnoDB: Failing assertion");
    assertThat(ServerCrashes.recoveryFailure(assertion))
        .hasValueSatisfying(s -> assertThat(s).contains("fails an assertion", "exit code 134"));
  }

  @Test
  void aSettingTheServerRefusesIsNoEvidenceNorIsOneCrash() {
    Pod memory =
        withLog(
            pod("db-2", 4, 1, "CrashLoopBackOff"),
            "r1",
            "[ERROR] InnoDB: Plugin initialization aborted with error Out of memory\n"
                + "[ERROR] Plugin 'InnoDB' registration as a STORAGE ENGINE failed.");
    assertThat(ServerCrashes.recoveryFailure(memory)).isEmpty();
    Pod once = withLog(pod("db-2", 1, 1, "Running"), "r1", MariaDbServers.CORRUPT_REDO_LOG_TAIL);
    assertThat(ServerCrashes.recoveryFailure(once)).isEmpty();
  }

  @Test
  void unrecoverableOnlyWhenTheSameTemplateRunsAReadyServerElsewhere() {
    Pod crashing =
        withLog(pod("db-2", 4, 1, "CrashLoopBackOff"), "r1", MariaDbServers.CORRUPT_REDO_LOG_TAIL);
    assertThat(ServerCrashes.unrecoverable(List.of(ready("db-0", "r1"), crashing)))
        .containsOnlyKeys("db-2");
    // After a template change only the crashing member runs the new one: a setting, maybe.
    assertThat(ServerCrashes.unrecoverable(List.of(ready("db-0", "r0"), crashing))).isEmpty();
    assertThat(ServerCrashes.unrecoverable(List.of(crashing))).isEmpty();
  }

  @Test
  void aReportedCrashSaysMoreThanTheConnectionErrorItCauses() {
    var why =
        ServerCrashes.orConnectionErrors(
            Map.of("db-1", "its server stopped: InnoDB could not finish crash recovery"),
            Map.of(
                "db-1", "db-1:3306: step connect: no connection to the server",
                "db-2", "db-2:3306: step connect: no answer within the timeout"));

    assertThat(why)
        .containsEntry("db-1", "its server stopped: InnoDB could not finish crash recovery")
        .containsEntry("db-2", "db-2:3306: step connect: no answer within the timeout")
        .hasSize(2);
  }
}
