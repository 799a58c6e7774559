package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.mysql.execute.InstanceException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The operator's jobs (dumps, loads, copies) fail with this operator's sentences. */
class BackgroundJobsTest {

  @Test
  void aFailureIsKeptAsASentenceForAPerson() {
    BackgroundJobs<String> jobs = new BackgroundJobs<>("test", 1, 2, JobFailures::describe);
    jobs.submit(
        "dump",
        "dump of db-1",
        Instant.now(),
        () -> {
          throw new InstanceException(
              "mariadb-dump exited with 2: Got error: 2002 when connecting");
        });
    jobs.submit(
        "bug",
        "dump of db-2",
        Instant.now(),
        () -> {
          throw new IllegalStateException("index 7 out of bounds for length 3");
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                jobs.state("dump").get() instanceof BackgroundJobs.Failed<String>
                    && jobs.state("bug").get() instanceof BackgroundJobs.Failed<String>);
    assertThat(((BackgroundJobs.Failed<String>) jobs.state("dump").get()).message())
        .isEqualTo("mariadb-dump exited with 2: Got error: 2002 when connecting");
    // The exception's class and text stay in the log.
    assertThat(((BackgroundJobs.Failed<String>) jobs.state("bug").get()).message())
        .isEqualTo("an internal error occurred; the operator's log has the details");
  }
}
