package dev.bosun.common.testing.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class AckedWriterTest {

  @Test
  void stopsByItselfAfterMaxWritesAndAcknowledgesEach() throws Exception {
    Set<Long> written = ConcurrentHashMap.newKeySet();
    AckedWriter w =
        AckedWriter.start("count", written::add, Duration.ZERO, 50, Duration.ofMinutes(1));

    assertThat(w.awaitDone(Duration.ofSeconds(30))).isTrue();
    assertThat(w.attempts()).isEqualTo(50);
    assertThat(w.acknowledged())
        .containsExactlyElementsOf(LongStream.range(0, 50).boxed().toList());
    assertThat(written).hasSize(50);
    assertThat(w.failures()).isZero();
  }

  @Test
  void stopsByItselfAtTheDeadline() throws Exception {
    AckedWriter w =
        AckedWriter.start(
            "time", seq -> {}, Duration.ofMillis(5), 1_000_000_000L, Duration.ofMillis(300));

    assertThat(w.awaitDone(Duration.ofSeconds(30))).isTrue();
    assertThat(w.isRunning()).isFalse();
    // 300 ms at one write per 5 ms: far below the count bound.
    assertThat(w.attempts()).isBetween(1L, 100L);
  }

  @Test
  void aFailedWriteIsCountedNeverAcknowledgedAndNotRetried() throws Exception {
    AckedWriter w =
        AckedWriter.start(
            "flaky",
            seq -> {
              if (seq % 2 == 1) {
                throw new IOException("lost connection");
              }
            },
            Duration.ZERO,
            30,
            Duration.ofMinutes(1));

    assertThat(w.awaitDone(Duration.ofSeconds(30))).isTrue();
    assertThat(w.acknowledged()).allMatch(seq -> seq % 2 == 0).hasSize(15);
    assertThat(w.failures()).isEqualTo(15);
    assertThat(w.attempts()).isEqualTo(30);
    assertThat(w.failureSamples())
        .hasSize(10)
        .first()
        .isEqualTo("1: java.io.IOException: lost connection");
  }

  @Test
  void stopEndsTheWriterAndFreezesItsResults() {
    AckedWriter w =
        AckedWriter.start(
            "stopped", seq -> {}, Duration.ofMillis(1), 1_000_000_000L, Duration.ofMinutes(5));
    await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() > 5);

    w.stop();

    assertThat(w.isRunning()).isFalse();
    long attempts = w.attempts();
    Set<Long> acked = w.acknowledged();
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(() -> w.attempts() == attempts && w.acknowledged().equals(acked));
    assertThat(acked).hasSize((int) attempts);
  }

  @Test
  void acknowledgedIsASnapshotSafeToReadWhileWriting() {
    AckedWriter w =
        AckedWriter.start("snapshot", seq -> {}, Duration.ZERO, 200_000, Duration.ofSeconds(30));
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                List<Long> snapshot = List.copyOf(w.acknowledged());
                // Written one at a time in order: a snapshot is always 0..n-1.
                assertThat(snapshot)
                    .isEqualTo(LongStream.range(0, snapshot.size()).boxed().toList());
                return snapshot.size() > 1000;
              });
    } finally {
      w.stop();
    }
  }

  @Test
  void theLongestGapSpansTheFailedWritesBetweenTwoAcknowledgements() throws Exception {
    AckedWriter w =
        AckedWriter.start(
            "gap",
            seq -> {
              if (seq >= 3 && seq < 13) {
                throw new IllegalStateException("primary down");
              }
            },
            Duration.ofMillis(20),
            20,
            Duration.ofMinutes(1));

    assertThat(w.awaitDone(Duration.ofSeconds(30))).isTrue();
    assertThat(w.acknowledgedCount()).isEqualTo(10);
    // From seq 2's acknowledgement to seq 13's: eleven pauses of at least 20 ms each.
    assertThat(w.longestGap()).isGreaterThanOrEqualTo(Duration.ofMillis(220));
  }

  @Test
  void boundsAreChecked() {
    assertThatThrownBy(
            () -> AckedWriter.start("x", s -> {}, Duration.ofMillis(-1), 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> AckedWriter.start("x", s -> {}, Duration.ZERO, 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
