package dev.bosun.mysql.plan;

import java.time.Duration;
import java.util.Map;

/**
 * What the spec and the cluster's annotation allow for rebuilding replicas.
 *
 * @param automatic spec.replication.rebuild is Automatic
 * @param requested the member a person asked to rebuild (annotation), or null
 * @param canKeepErrant whether errant transactions have a place to be exported to
 * @param unsupported why this cluster's flavour cannot be rebuilt, or null
 * @param state where the current rebuild stands
 * @param lastRebuilt the member the last finished rebuild rebuilt, or null
 * @param sinceLastRebuilt how long ago that rebuild finished, or null
 * @param unrecoverable members whose server cannot finish crash recovery, with the evidence
 */
public record RebuildPolicy(
    boolean automatic,
    String requested,
    boolean canKeepErrant,
    String unsupported,
    RebuildState state,
    String lastRebuilt,
    Duration sinceLastRebuilt,
    Map<String, String> unrecoverable) {

  public RebuildPolicy {
    unrecoverable = Map.copyOf(unrecoverable);
  }

  /** A policy with no member known to be unrecoverable. */
  public RebuildPolicy(
      boolean automatic,
      String requested,
      boolean canKeepErrant,
      String unsupported,
      RebuildState state,
      String lastRebuilt,
      Duration sinceLastRebuilt) {
    this(
        automatic,
        requested,
        canKeepErrant,
        unsupported,
        state,
        lastRebuilt,
        sinceLastRebuilt,
        Map.of());
  }

  /** A policy with no finished rebuild to remember. */
  public RebuildPolicy(
      boolean automatic,
      String requested,
      boolean canKeepErrant,
      String unsupported,
      RebuildState state) {
    this(automatic, requested, canKeepErrant, unsupported, state, null, null, Map.of());
  }

  /** Whether {@code member} was rebuilt less than {@code window} ago. */
  boolean rebuiltWithin(String member, Duration window) {
    return member.equals(lastRebuilt)
        && sinceLastRebuilt != null
        && sinceLastRebuilt.compareTo(window) < 0;
  }

  /** Manual, nothing requested, nothing under way. */
  public static RebuildPolicy manual() {
    return new RebuildPolicy(false, null, true, null, RebuildState.none());
  }
}
