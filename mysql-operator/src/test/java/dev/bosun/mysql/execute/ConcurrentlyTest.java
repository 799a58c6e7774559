package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Independent calls to several instances: at once, every result in order, all awaited. */
class ConcurrentlyTest {

  @Test
  void callsRunAtOnceAndResultsKeepTheGivenOrder() {
    // Each call waits for the other two: one after another, the first would time out.
    CyclicBarrier all = new CyclicBarrier(3);
    var results =
        Concurrently.each(
            List.of("db-2", "db-0", "db-1"),
            name -> {
              try {
                all.await(5, TimeUnit.SECONDS);
              } catch (Exception sequential) {
                throw new InstanceException(name + " ran alone");
              }
              return name.toUpperCase();
            });
    assertThat(results).noneMatch(Concurrently.Result::failed);
    assertThat(results)
        .extracting(Concurrently.Result::value)
        .containsExactly("DB-2", "DB-0", "DB-1");
  }

  @Test
  void aFailureIsKeptWithItsItemAndTheOthersStillRun() {
    AtomicInteger ran = new AtomicInteger();
    var results =
        Concurrently.each(
            List.of("db-0", "db-1", "db-2"),
            name -> {
              ran.incrementAndGet();
              if (name.equals("db-1")) {
                throw new InstanceException("db-1: refused");
              }
              return name;
            });
    assertThat(ran).hasValue(3);
    var failed = Concurrently.firstFailure(results);
    assertThat(failed.item()).isEqualTo("db-1");
    assertThat(failed.failure()).hasMessage("db-1: refused");
    assertThat(results.get(2).value()).isEqualTo("db-2");
  }

  @Test
  void anUncheckedExceptionIsThrownOnlyOnceEveryCallEnded() {
    AtomicInteger finished = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Concurrently.each(
                    List.of("slow", "boom"),
                    name -> {
                      if (name.equals("boom")) {
                        throw new IllegalStateException("boom");
                      }
                      try {
                        Thread.sleep(200);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      finished.incrementAndGet();
                      return name;
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");
    assertThat(finished).hasValue(1);
  }

  @Test
  void nothingToDoIsNoResult() {
    assertThat(Concurrently.each(List.<String>of(), name -> name)).isEmpty();
    assertThat(Concurrently.firstFailure(List.<Concurrently.Result<String, String>>of())).isNull();
  }
}
