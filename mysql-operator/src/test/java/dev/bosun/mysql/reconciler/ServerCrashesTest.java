package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
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
        .contains("trx0purge.cc", "clear it", "never deletes data itself");
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
}
