package dev.bosun.common.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Merges desired conditions into stored ones: one entry per type, and {@code lastTransitionTime}
 * kept unless the status really changes, so an unchanged state produces an identical status.
 */
public final class Conditions {

  private Conditions() {}

  /** The stored condition of a type, if any. */
  public static Optional<Condition> find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return Optional.empty();
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /**
   * True when condition {@code type} is in both lists with the same status and reason: nothing a
   * user would be told about (an Event, a log line) happened to it. Null lists have no conditions.
   */
  public static boolean sameStatusAndReason(
      List<Condition> before, List<Condition> after, String type) {
    Optional<Condition> b = find(before == null ? List.of() : before, type);
    Optional<Condition> a = find(after == null ? List.of() : after, type);
    return b.isPresent()
        && a.isPresent()
        && Objects.equals(b.get().getStatus(), a.get().getStatus())
        && Objects.equals(b.get().getReason(), a.get().getReason());
  }

  /**
   * The stored condition of {@code type} as a desired one, to carry it over unchanged, or {@code
   * otherwise} when there is none.
   */
  public static DesiredCondition carried(
      List<Condition> conditions, String type, DesiredCondition otherwise) {
    return find(conditions, type)
        .map(c -> new DesiredCondition(type, c.getStatus(), c.getReason(), c.getMessage()))
        .orElse(otherwise);
  }

  /** The generation a status describes: the object's, 0 before the API server assigned one. */
  public static long generationOf(HasMetadata owner) {
    Long generation = owner.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }

  /** True when the stored condition of the type has status True. */
  public static boolean isTrue(List<Condition> conditions, String type) {
    return find(conditions, type)
        .map(c -> DesiredCondition.TRUE.equals(c.getStatus()))
        .orElse(false);
  }

  /**
   * The new condition list: the desired conditions in the given order, each stamped with the
   * generation it describes; a condition whose status did not change keeps its transition time.
   */
  public static List<Condition> merge(
      List<Condition> previous, List<DesiredCondition> desired, long generation, Clock clock) {
    String now =
        DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
    List<Condition> result = new ArrayList<>(desired.size());
    for (DesiredCondition d : desired) {
      String transition =
          find(previous, d.type())
              .filter(
                  old -> d.status().equals(old.getStatus()) && old.getLastTransitionTime() != null)
              .map(Condition::getLastTransitionTime)
              .orElse(now);
      result.add(
          new ConditionBuilder()
              .withType(d.type())
              .withStatus(d.status())
              .withReason(d.reason())
              .withMessage(d.message())
              .withObservedGeneration(generation)
              .withLastTransitionTime(transition)
              .build());
    }
    return result;
  }
}
