package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * A seeded schedule of faults: start times drawn over a span, kinds drawn by weight from a menu,
 * targets and durations drawn per fault. Faults overlap, but never more than {@code maxOverlap}
 * lasting faults at once: one that would exceed it starts when the earliest active one heals
 * (enough at once to break quorum, never everything at once for the whole schedule). The same seed,
 * menu and settings always give the same schedule.
 */
public record FaultSchedule(long seed, List<Fault> faults) {

  private static final long GRAIN_MILLIS = 100;

  public FaultSchedule {
    faults = List.copyOf(faults);
  }

  /** Draws the schedule of {@code seed}. */
  public static FaultSchedule generate(
      long seed, List<FaultKind> menu, int count, Duration span, int maxOverlap) {
    if (menu.isEmpty()) {
      throw new IllegalArgumentException("a fault schedule needs a menu of fault kinds");
    }
    return new FaultSchedule(
        seed, numbered(draw(new Random(seed), menu, count, span, maxOverlap, List.of())));
  }

  /**
   * This schedule with {@code count} faults more, drawn from {@code menu} on a random stream of
   * their own ({@code streamSeed}) and fitted in among this schedule's faults under the same bound
   * on lasting faults at once; all are numbered again in time order. A suite that grows its faults
   * this way keeps each seed's earlier faults as they were.
   */
  public FaultSchedule plus(
      long streamSeed, List<FaultKind> menu, int count, Duration span, int maxOverlap) {
    if (menu.isEmpty()) {
      throw new IllegalArgumentException("a fault schedule needs a menu of fault kinds");
    }
    return new FaultSchedule(
        seed, numbered(draw(new Random(streamSeed), menu, count, span, maxOverlap, faults)));
  }

  /** {@code existing} and {@code count} faults drawn with {@code random}, in time order. */
  private static List<Fault> draw(
      Random random,
      List<FaultKind> menu,
      int count,
      Duration span,
      int maxOverlap,
      List<Fault> existing) {
    List<Duration> starts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      starts.add(grain(random, Duration.ZERO, span));
    }
    starts.sort(Comparator.naturalOrder());
    List<Fault> faults = new ArrayList<>(existing);
    for (Duration start : starts) {
      FaultKind kind = draw(random, menu);
      String target = kind.targets().get(random.nextInt(kind.targets().size()));
      Duration length = grain(random, kind.shortest(), kind.longest());
      Duration at =
          kind.instantaneous()
              ? start
              : existing.isEmpty()
                  ? roomAt(faults, start, maxOverlap)
                  : roomThroughout(faults, start, length, maxOverlap);
      faults.add(new Fault(0, kind.name(), target, at, length));
    }
    faults.sort(Comparator.comparing(Fault::at));
    return faults;
  }

  /**
   * The first instant from {@code start} on from which a fault of {@code length} keeps fewer than
   * {@code max} other lasting faults beside it throughout: faults placed before it may start while
   * it lasts.
   */
  private static Duration roomThroughout(
      List<Fault> faults, Duration start, Duration length, int max) {
    Duration at = start;
    while (true) {
      Duration from = at;
      Duration end = at.plus(length);
      List<Duration> instants = new ArrayList<>();
      instants.add(from);
      faults.stream()
          .filter(f -> !f.instantaneous())
          .map(Fault::at)
          .filter(x -> x.compareTo(from) > 0 && x.compareTo(end) < 0)
          .forEach(instants::add);
      Duration next = null;
      for (Duration x : instants) {
        List<Fault> active =
            faults.stream()
                .filter(f -> !f.instantaneous())
                .filter(f -> f.at().compareTo(x) <= 0 && f.healAt().compareTo(x) > 0)
                .toList();
        if (active.size() >= max) {
          next = active.stream().map(Fault::healAt).min(Comparator.naturalOrder()).orElseThrow();
          break;
        }
      }
      if (next == null) {
        return at;
      }
      at = next;
    }
  }

  private static List<Fault> numbered(List<Fault> faults) {
    List<Fault> numbered = new ArrayList<>();
    for (Fault f : faults) {
      numbered.add(new Fault(numbered.size() + 1, f.kind(), f.target(), f.at(), f.length()));
    }
    return numbered;
  }

  /** The first instant from {@code start} on at which fewer than {@code max} lasting faults run. */
  private static Duration roomAt(List<Fault> faults, Duration start, int max) {
    Duration at = start;
    while (true) {
      Duration now = at;
      List<Fault> active =
          faults.stream()
              .filter(f -> !f.instantaneous())
              .filter(f -> f.at().compareTo(now) <= 0 && f.healAt().compareTo(now) > 0)
              .toList();
      if (active.size() < max) {
        return at;
      }
      at = active.stream().map(Fault::healAt).min(Comparator.naturalOrder()).orElseThrow();
    }
  }

  private static FaultKind draw(Random random, List<FaultKind> menu) {
    int total = menu.stream().mapToInt(FaultKind::weight).sum();
    int pick = random.nextInt(total);
    for (FaultKind kind : menu) {
      pick -= kind.weight();
      if (pick < 0) {
        return kind;
      }
    }
    throw new IllegalStateException("weights changed while drawing");
  }

  /** A duration in [low, high] in steps of 100 ms. */
  private static Duration grain(Random random, Duration low, Duration high) {
    long steps = (high.toMillis() - low.toMillis()) / GRAIN_MILLIS;
    long step =
        steps <= 0 ? 0 : (long) random.nextInt((int) Math.min(Integer.MAX_VALUE, steps + 1));
    return low.plusMillis(step * GRAIN_MILLIS);
  }

  /** When the last fault is healed (or happens), after the schedule's start. */
  public Duration end() {
    return faults.stream().map(Fault::healAt).max(Comparator.naturalOrder()).orElse(Duration.ZERO);
  }

  /** The schedule as text: the seed and how to replay it, then one line per fault. */
  public String text(String replayCommand) {
    StringBuilder out =
        new StringBuilder("seed ")
            .append(seed)
            .append(": ")
            .append(faults.size())
            .append(" faults over ")
            .append(Fault.seconds(end()))
            .append("s (replay: ")
            .append(replayCommand)
            .append(" --seed ")
            .append(seed)
            .append(")\n");
    for (Fault f : faults) {
      out.append("  ").append(f.describe()).append('\n');
    }
    return out.toString();
  }
}
