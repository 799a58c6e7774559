package dev.bosun.common.testing.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SeedSourceTest {

  @Test
  void aFixedListGivesItsSeedsInOrderThenNothing() {
    SeedSource seeds = SeedSource.of(List.of(8L, 21L));

    assertThat(seeds.next()).isEqualTo(OptionalLong.of(8));
    assertThat(seeds.next()).isEqualTo(OptionalLong.of(21));
    assertThat(seeds.next()).isEmpty();
    assertThat(seeds.timeBound()).isFalse();
  }

  @Test
  void aTimeBoundRunGivesFreshShortSeedsUntilItsDeadline() {
    AtomicLong now = new AtomicLong(5);
    SeedSource seeds = SeedSource.forDuration(Duration.ofMinutes(2), 99, now::get);

    OptionalLong first = seeds.next();
    OptionalLong second = seeds.next();
    assertThat(first).isPresent();
    assertThat(first.getAsLong()).isBetween(1L, 999_999L);
    assertThat(second).isPresent().isNotEqualTo(first);
    now.addAndGet(Duration.ofMinutes(2).toNanos());
    assertThat(seeds.next()).isEmpty();
    assertThat(seeds.timeBound()).isTrue();
  }

  @Test
  void aGivenSeedWinsOverMinutesAndMinutesOverTheFixedSeeds() {
    assertThat(
            SeedSource.choose(Optional.of(7L), Optional.of(Duration.ofMinutes(1)), List.of(1L))
                .next())
        .isEqualTo(OptionalLong.of(7));
    assertThat(
            SeedSource.choose(Optional.empty(), Optional.of(Duration.ofMinutes(1)), List.of(1L))
                .timeBound())
        .isTrue();
    SeedSource ci = SeedSource.choose(Optional.empty(), Optional.empty(), List.of(1L, 2L));
    assertThat(ci.timeBound()).isFalse();
    assertThat(ci.next()).isEqualTo(OptionalLong.of(1));
  }
}
