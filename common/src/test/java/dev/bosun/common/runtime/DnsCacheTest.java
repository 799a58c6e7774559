package dev.bosun.common.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A name that moves to another address (a Pod made again) is resolved anew within about the set
 * TTL; without the setting the JVM keeps the old address far longer. Each case runs in a JVM of its
 * own, since the JVM reads its cache settings once.
 */
class DnsCacheTest {

  @TempDir Path dir;

  @Test
  void aMovedNameIsSeenWithinTwoSecondsOnceTheCacheFollowsPodChanges() throws Exception {
    String seen = probe("follow", 5_000);
    assertThat(seen).isNotEqualTo("stale");
    assertThat(Long.parseLong(seen)).isLessThan(2_000);
  }

  @Test
  void setAfterTheLoggingSystemStartedItIsTooLate() throws Exception {
    // Why the operators' main classes set it in a static initializer, ahead of any logger.
    assertThat(probe("follow", 3_000, "log-first")).isEqualTo("stale");
  }

  @Test
  void withoutItTheJvmKeepsTheOldAddress() throws Exception {
    assertThat(probe("default", 3_000)).isEqualTo("stale");
  }

  private String probe(String mode, long boundMillis) throws IOException, InterruptedException {
    return probe(mode, boundMillis, "plain");
  }

  private String probe(String mode, long boundMillis, String start)
      throws IOException, InterruptedException {
    Path hosts = dir.resolve(mode + ".hosts");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djdk.net.hosts.file=" + hosts,
                "-cp",
                System.getProperty("java.class.path"),
                DnsCacheProbe.class.getName(),
                hosts.toString(),
                mode,
                Long.toString(boundMillis),
                start)
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(boundMillis + 20_000, TimeUnit.MILLISECONDS)).isTrue();
    List<String> lines =
        List.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n"));
    assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
    return lines.get(lines.size() - 1).trim();
  }
}
