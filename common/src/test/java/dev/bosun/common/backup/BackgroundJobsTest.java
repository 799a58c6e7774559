package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.HumanMessages;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Jobs off the reconcile threads: bounded, one per key, results taken once. */
class BackgroundJobsTest {

  static final Instant T = Instant.parse("2026-11-23T10:00:00Z");

  static BackgroundJobs<String> jobs(String name, int threads, int queued) {
    return new BackgroundJobs<>(name, threads, queued, HumanMessages::describe);
  }

  @Test
  void aJobRunsOffTheCallerAndItsResultIsTakenOnce() throws Exception {
    try (BackgroundJobs<String> jobs = jobs("test", 1, 1)) {
      CountDownLatch release = new CountDownLatch(1);
      Thread caller = Thread.currentThread();
      assertThat(
              jobs.submit(
                  "a",
                  "dump a",
                  T,
                  () -> {
                    assertThat(Thread.currentThread()).isNotSameAs(caller);
                    assertThat(Thread.currentThread().getName()).startsWith("test-");
                    release.await();
                    return "done-a";
                  }))
          .isTrue();
      // The caller is not blocked: the job is running while we look at it.
      assertThat(jobs.state("a"))
          .get()
          .isEqualTo(new BackgroundJobs.Running<String>("dump a", T, 0));
      // One job per key at a time.
      assertThat(jobs.submit("a", "again", T, () -> "x")).isFalse();
      jobs.forget("a");
      assertThat(jobs.state("a")).as("a running job is not forgotten").isPresent();
      release.countDown();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> jobs.state("a").get() instanceof BackgroundJobs.Done<String>);
      assertThat(((BackgroundJobs.Done<String>) jobs.state("a").get()).result())
          .isEqualTo("done-a");
      jobs.forget("a");
      assertThat(jobs.state("a")).isEmpty();
    }
  }

  @Test
  void aRunningJobShowsTheProgressItsWorkReports() {
    BackgroundJobs<Long> dumps = new BackgroundJobs<>("progress", 1, 1, HumanMessages::describe);
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
    BackgroundJobs<String> jobs = jobs("test", 1, 1);
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
  void theQueueHoldsWhatTheOperatorsPoolsAreSizedFor() {
    // The etcd operator's snapshot pool: two running, sixteen waiting, the next one refused.
    try (BackgroundJobs<String> jobs = jobs("etcd-snapshot", 2, 16)) {
      CountDownLatch release = new CountDownLatch(1);
      for (int i = 0; i < jobs.threads() + jobs.queued(); i++) {
        assertThat(
                jobs.submit(
                    "uid-" + i,
                    "snapshot " + i,
                    T,
                    () -> {
                      release.await(10, TimeUnit.SECONDS);
                      return "k";
                    }))
            .isTrue();
      }
      assertThat(jobs.submit("one-too-many", "snapshot", T, () -> "k")).isFalse();
      assertThat(jobs.state("one-too-many")).isEmpty();
      release.countDown();
    }
  }

  @Test
  void aFailureIsTheJobsEndInThePoolsWords() {
    try (BackgroundJobs<String> jobs =
        new BackgroundJobs<>("test", 1, 1, e -> "described: " + e.getMessage())) {
      jobs.submit(
          "uid-2",
          "snapshot",
          T,
          () -> {
            throw new IOException("no member delivered a snapshot");
          });
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> jobs.state("uid-2").get() instanceof BackgroundJobs.Failed<String>);
      assertThat(jobs.state("uid-2"))
          .contains(
              new BackgroundJobs.Failed<>(
                  "snapshot", T, "described: no member delivered a snapshot"));
    }
  }

  @Test
  void aJobThatDiesOfAnErrorStillEnds() {
    BackgroundJobs<String> jobs = jobs("test", 1, 1);
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
