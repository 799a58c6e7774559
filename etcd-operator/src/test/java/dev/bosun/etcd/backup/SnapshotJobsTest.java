package dev.bosun.etcd.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.backup.StoredObject;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SnapshotJobsTest {

  static final Instant T = Instant.parse("2026-11-23T10:00:00Z");

  static SnapshotTaker.Snapshot snapshot(String key) {
    return new SnapshotTaker.Snapshot(new StoredObject(key, 3, T, "file:" + key), 42);
  }

  @Test
  void aSnapshotRunsOffTheCallingThreadAndReportsItsProgress() throws Exception {
    try (SnapshotJobs jobs = new SnapshotJobs()) {
      CountDownLatch release = new CountDownLatch(1);
      Thread caller = Thread.currentThread();
      SnapshotJobs.Job job =
          jobs.submit(
              "uid-1",
              T,
              "ns/c/b/1.db",
              bytes -> {
                assertThat(Thread.currentThread()).isNotSameAs(caller);
                assertThat(Thread.currentThread().getName()).startsWith("etcd-snapshot-");
                bytes.addAndGet(1024);
                release.await(10, TimeUnit.SECONDS);
                return snapshot("ns/c/b/1.db");
              });
      await().atMost(Duration.ofSeconds(5)).until(() -> job.bytes() == 1024);
      assertThat(job.done()).isFalse();
      assertThat(jobs.job("uid-1")).containsSame(job);
      assertThat(jobs.active()).isEqualTo(1);
      // One job per backup at a time.
      assertThatThrownBy(() -> jobs.submit("uid-1", T, "k", b -> snapshot("k")))
          .isInstanceOf(IllegalStateException.class);
      jobs.collect("uid-1");
      assertThat(jobs.job("uid-1")).as("a running job is not forgotten").isPresent();

      release.countDown();
      assertThat(job.result().get(5, TimeUnit.SECONDS).revision()).isEqualTo(42);
      jobs.collect("uid-1");
      assertThat(jobs.job("uid-1")).isEmpty();
    }
  }

  @Test
  void aFailureIsTheJobsResult() throws Exception {
    try (SnapshotJobs jobs = new SnapshotJobs()) {
      SnapshotJobs.Job job =
          jobs.submit(
              "uid-2",
              T,
              "k",
              bytes -> {
                throw new java.io.IOException("no member delivered a snapshot");
              });
      await().atMost(Duration.ofSeconds(5)).until(job::done);
      assertThat(job.result()).isCompletedExceptionally();
    }
  }

  @Test
  void theQueueIsBounded() {
    try (SnapshotJobs jobs = new SnapshotJobs()) {
      CountDownLatch release = new CountDownLatch(1);
      int capacity = SnapshotJobs.THREADS + SnapshotJobs.QUEUE;
      for (int i = 0; i < capacity; i++) {
        jobs.submit(
            "uid-" + i,
            T,
            "k",
            bytes -> {
              release.await(10, TimeUnit.SECONDS);
              return snapshot("k");
            });
      }
      assertThatThrownBy(() -> jobs.submit("one-too-many", T, "k", b -> snapshot("k")))
          .isInstanceOf(RejectedExecutionException.class);
      assertThat(jobs.job("one-too-many")).isEmpty();
      release.countDown();
    }
  }
}
