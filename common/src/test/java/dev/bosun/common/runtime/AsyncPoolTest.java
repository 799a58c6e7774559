package dev.bosun.common.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The common pool is sized when first used, once per JVM: each case runs a fresh JVM with the CPU
 * count it names.
 */
class AsyncPoolTest {

  @Test
  void onTwoCpusAsyncStagesRunOnTwoPooledThreadsInsteadOfANewThreadEach() throws Exception {
    assertThat(run("-XX:ActiveProcessorCount=2")).isEqualTo("parallelism=2 pooled=true");
  }

  @Test
  void onOneCpuTheCommonPoolAlsoGetsTwoThreads() throws Exception {
    assertThat(run("-XX:ActiveProcessorCount=1")).isEqualTo("parallelism=2 pooled=true");
  }

  @Test
  void withoutItTwoCpusMeanAThreadPerAsyncStage() throws Exception {
    assertThat(run("-XX:ActiveProcessorCount=2", "-Dbosun.test.skip=true"))
        .isEqualTo("parallelism=1 pooled=false");
  }

  @Test
  void moreCpusAndAnExplicitSettingAreLeftAlone() throws Exception {
    assertThat(run("-XX:ActiveProcessorCount=6")).isEqualTo("parallelism=5 pooled=true");
    assertThat(run("-XX:ActiveProcessorCount=2", "-D" + AsyncPool.PARALLELISM + "=3"))
        .isEqualTo("parallelism=3 pooled=true");
  }

  /** Runs {@link Child} in a new JVM with {@code jvmArgs}; returns what it printed. */
  private static String run(String... jvmArgs) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(jvmArgs));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Child.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
  }

  /** What a deployed operator's main does first, then where an async stage runs. */
  static final class Child {
    public static void main(String[] args) {
      if (!Boolean.getBoolean("bosun.test.skip")) {
        AsyncPool.ensureTwoThreads();
      }
      String thread = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName()).join();
      System.out.println(
          "parallelism="
              + ForkJoinPool.getCommonPoolParallelism()
              + " pooled="
              + thread.startsWith("ForkJoinPool.commonPool-worker"));
    }
  }
}
