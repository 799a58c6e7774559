package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.mysql.workload.InstanceException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Jobs off the reconcile threads: bounded, one per key, results taken once. */
class BackgroundJobsTest {

  @Test
  void aJobRunsOffTheCallerAndItsResultIsTakenOnce() throws Exception {
    BackgroundJobs<String> jobs = new BackgroundJobs<>("test", 1, 1);
    CountDownLatch release = new CountDownLatch(1);
    Instant now = Instant.parse("2026-11-23T19:00:00Z");
    assertThat(
            jobs.submit(
                "a",
                "dump a",
                now,
                () -> {
                  release.await();
                  return "done-a";
                }))
        .isTrue();
    // The caller is not blocked: the job is running while we look at it.
    assertThat(jobs.state("a"))
        .get()
        .isEqualTo(new BackgroundJobs.Running<String>("dump a", now, 0));
    assertThat(jobs.submit("a", "again", now, () -> "x")).isFalse();
    jobs.forget("a");
    assertThat(jobs.state("a")).isPresent();
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> jobs.state("a").get() instanceof BackgroundJobs.Done<String>);
    assertThat(((BackgroundJobs.Done<String>) jobs.state("a").get()).result()).isEqualTo("done-a");
    jobs.forget("a");
    assertThat(jobs.state("a")).isEmpty();
  }

  @Test
  void aRunningJobShowsTheProgressItsWorkReports() {
    BackgroundJobs<Long> dumps = new BackgroundJobs<>("progress", 1, 1);
    CountDownLatch uploaded = new CountDownLatch(1);
    Instant started = Instant.parse("2026-11-24T02:00:00Z");
    dumps.submit(
        "db",
        "dump of db-1",
        started,
        bytes -> {
          bytes.set(4096);
          uploaded.await();
          bytes.set(8192);
          return bytes.get();
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(dumps.state("db"))
                    .contains(new BackgroundJobs.Running<>("dump of db-1", started, 4096)));
    uploaded.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(dumps.state("db"))
                    .contains(new BackgroundJobs.Done<>("dump of db-1", started, 8192L)));
  }

  @Test
  void aFullPoolRefusesInsteadOfBlocking() throws Exception {
    BackgroundJobs<String> jobs = new BackgroundJobs<>("test", 1, 1);
    CountDownLatch release = new CountDownLatch(1);
    Instant now = Instant.now();
    assertThat(
            jobs.submit(
                "a",
                "a",
                now,
                () -> {
                  release.await();
                  return "a";
                }))
        .isTrue();
    assertThat(jobs.submit("b", "b", now, () -> "b")).isTrue();
    assertThat(jobs.submit("c", "c", now, () -> "c")).isFalse();
    assertThat(jobs.state("c")).isEmpty();
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> jobs.state("b").get() instanceof BackgroundJobs.Done<String>);
  }

  @Test
  void aFailureIsKeptAsASentenceForAPerson() {
    BackgroundJobs<String> jobs = new BackgroundJobs<>("test", 1, 2);
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

  @Test
  void aJobThatDiesOfAnErrorStillEnds() {
    BackgroundJobs<String> jobs = new BackgroundJobs<>("test", 1, 1);
    jobs.submit(
        "a",
        "a",
        Instant.now(),
        () -> {
          throw new StackOverflowError();
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> jobs.state("a").get() instanceof BackgroundJobs.Failed<String>);
    assertThat(((BackgroundJobs.Failed<String>) jobs.state("a").get()).message())
        .doesNotContain("StackOverflowError");
  }
}
