package dev.bosun.common.testing.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FaultScheduleTest {

  private static final List<String> MEMBERS = List.of("m0", "m1", "m2");
  private static final List<FaultKind> MENU =
      List.of(
          FaultKind.lasting("freeze", 3, MEMBERS, Duration.ofSeconds(1), Duration.ofSeconds(8)),
          FaultKind.lasting(
              "partition",
              2,
              List.of("m0|m1,m2", "m1|m0,m2"),
              Duration.ofSeconds(2),
              Duration.ofSeconds(10)),
          FaultKind.instant("kill", 1, MEMBERS));

  private static FaultSchedule schedule(long seed, int count, int overlap) {
    return FaultSchedule.generate(seed, MENU, count, Duration.ofSeconds(60), overlap);
  }

  @Test
  void theSameSeedGivesTheSameScheduleAndAnotherSeedAnotherOne() {
    assertThat(schedule(42, 20, 2)).isEqualTo(schedule(42, 20, 2));
    assertThat(schedule(42, 20, 2).faults()).isNotEqualTo(schedule(43, 20, 2).faults());
  }

  @Test
  void faultsAddedOnAStreamOfTheirOwnKeepTheFirstOnesAndTheBoundOnOverlap() {
    for (long seed = 1; seed <= 30; seed++) {
      FaultSchedule base = schedule(seed, 8, 2);
      FaultSchedule both =
          base.plus(
              seed + 1000,
              List.of(
                  FaultKind.instant("back up", 1, List.of("store")),
                  FaultKind.lasting(
                      "operator dies",
                      1,
                      List.of("op"),
                      Duration.ofSeconds(3),
                      Duration.ofSeconds(9))),
              3,
              Duration.ofSeconds(60),
              2);

      assertThat(both.seed()).isEqualTo(seed);
      assertThat(both.faults()).hasSize(11).isSortedAccordingTo(Comparator.comparing(Fault::at));
      assertThat(both.faults())
          .extracting(Fault::index)
          .containsExactlyElementsOf(IntStream.rangeClosed(1, 11).boxed().toList());
      assertThat(both.faults())
          .extracting(f -> f.kind() + " " + f.target() + " " + f.at() + " " + f.length())
          .containsAll(
              base.faults().stream()
                  .map(f -> f.kind() + " " + f.target() + " " + f.at() + " " + f.length())
                  .toList());
      for (Fault f : both.faults()) {
        long atOnce =
            both.faults().stream()
                .filter(o -> !o.instantaneous())
                .filter(o -> o.at().compareTo(f.at()) <= 0 && o.healAt().compareTo(f.at()) > 0)
                .count();
        assertThat(atOnce).as("lasting faults at %s", f.at()).isLessThanOrEqualTo(2);
      }
    }
  }

  @Test
  void faultsAreInTimeOrderNumberedFromOneAndDrawnFromTheMenu() {
    FaultSchedule s = schedule(7, 30, 2);

    assertThat(s.faults()).hasSize(30);
    assertThat(s.faults()).isSortedAccordingTo(Comparator.comparing(Fault::at));
    assertThat(s.faults())
        .extracting(Fault::index)
        .containsExactlyElementsOf(IntStream.rangeClosed(1, 30).boxed().toList());
    for (Fault f : s.faults()) {
      FaultKind kind =
          MENU.stream().filter(k -> k.name().equals(f.kind())).findFirst().orElseThrow();
      assertThat(kind.targets()).contains(f.target());
      assertThat(f.length()).isBetween(kind.shortest(), kind.longest());
      assertThat(f.length().toMillis() % 100).isZero();
    }
  }

  @Test
  void neverMoreLastingFaultsAtOnceThanAllowedButFaultsDoOverlap() {
    for (long seed = 1; seed <= 50; seed++) {
      FaultSchedule s = schedule(seed, 25, 2);
      for (Fault f : s.faults()) {
        long active =
            s.faults().stream()
                .filter(o -> !o.instantaneous())
                .filter(o -> o.at().compareTo(f.at()) <= 0 && o.healAt().compareTo(f.at()) > 0)
                .count();
        assertThat(active).as("seed %d at %s", seed, f.describe()).isLessThanOrEqualTo(2);
      }
    }
    FaultSchedule dense = schedule(3, 25, 2);
    assertThat(dense.faults())
        .anySatisfy(
            f ->
                assertThat(dense.faults())
                    .anyMatch(
                        o ->
                            o.index() != f.index()
                                && !o.instantaneous()
                                && !f.instantaneous()
                                && o.at().compareTo(f.at()) <= 0
                                && o.healAt().compareTo(f.at()) > 0));
  }

  @Test
  void kindsAreDrawnRoughlyByWeight() {
    Map<String, Long> counts =
        schedule(11, 3000, 3000).faults().stream()
            .collect(Collectors.groupingBy(Fault::kind, Collectors.counting()));

    // Weights 3:2:1 of 3000 draws: 1500, 1000, 500 expected.
    assertThat(counts.get("freeze")).isBetween(1350L, 1650L);
    assertThat(counts.get("partition")).isBetween(880L, 1120L);
    assertThat(counts.get("kill")).isBetween(420L, 580L);
  }

  @Test
  void instantaneousFaultsHaveNoLengthAndTheTextNamesTheSeedAndTheReplay() {
    FaultSchedule s = schedule(5, 15, 2);

    assertThat(s.faults()).filteredOn(f -> f.kind().equals("kill")).allMatch(Fault::instantaneous);
    String text = s.text("./bosun chaos etcd");
    assertThat(text)
        .startsWith("seed 5: 15 faults over ")
        .contains("(replay: ./bosun chaos etcd --seed 5)");
    assertThat(text.lines().skip(1)).hasSize(15).allMatch(l -> l.startsWith("  #"));
    assertThat(s.end())
        .isEqualTo(
            s.faults().stream().map(Fault::healAt).max(Comparator.naturalOrder()).orElseThrow());
  }

  @Test
  void aKindWithoutTargetsOrWithAnInvertedRangeIsRefused() {
    assertThatThrownBy(() -> FaultKind.instant("kill", 1, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kill");
    assertThatThrownBy(
            () ->
                FaultKind.lasting(
                    "freeze", 1, MEMBERS, Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaultSchedule.generate(1, List.of(), 3, Duration.ofSeconds(1), 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void describeIsOneLineForAPerson() {
    assertThat(
            new Fault(3, "freeze", "m1", Duration.ofMillis(12_400), Duration.ofMillis(5_200))
                .describe())
        .isEqualTo("#3 t+12.4s freeze m1 for 5.2s");
    assertThat(new Fault(4, "kill", "m0", Duration.ofSeconds(2), Duration.ZERO).describe())
        .isEqualTo("#4 t+2.0s kill m0");
  }
}
