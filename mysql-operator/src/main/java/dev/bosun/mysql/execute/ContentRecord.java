package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.ContentChecking;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status's record of the members' data checks: the server start whose data was last found the
 * same as the primary's (or first seen) per member, the members found to differ (kept out until
 * rebuilt), and the last comparison in a sentence.
 */
public record ContentRecord(
    Map<String, Long> verifiedStarts, Map<String, String> differing, String last, Instant lastAt) {

  public ContentRecord {
    verifiedStarts = Map.copyOf(verifiedStarts);
    differing = Map.copyOf(differing);
  }

  /** Nothing recorded yet. */
  public static ContentRecord empty() {
    return new ContentRecord(Map.of(), Map.of(), null, null);
  }

  /** The same with these members' server starts taken as verified. */
  ContentRecord withStarts(Map<String, Long> starts) {
    Map<String, Long> next = new TreeMap<>(verifiedStarts);
    next.putAll(starts);
    return new ContentRecord(next, differing, last, lastAt);
  }

  /** The same with a comparison's outcome: {@code differs} names a member kept out, or is null. */
  ContentRecord compared(
      Map<String, Long> starts, String differs, String differences, String sentence, Instant at) {
    Map<String, Long> nextStarts = new TreeMap<>(verifiedStarts);
    nextStarts.putAll(starts);
    Map<String, String> nextDiffering = new TreeMap<>(differing);
    if (differs != null) {
      nextDiffering.put(differs, differences);
    }
    return new ContentRecord(nextStarts, nextDiffering, sentence, at);
  }

  /**
   * The same once a side taken as known good was found lacking rows a restarted member holds: only
   * {@code holder}'s start is known good now, every other member's is {@link
   * ContentChecking#DISPROVED} (it may have been found the same as the side that lacks them, seed
   * 614468), and {@code lacking} is kept out.
   */
  ContentRecord disproved(
      String holder,
      long holderStart,
      String lacking,
      String differences,
      String sentence,
      Instant at) {
    Map<String, Long> nextStarts = new TreeMap<>();
    verifiedStarts.keySet().forEach(m -> nextStarts.put(m, ContentChecking.DISPROVED));
    nextStarts.remove(lacking);
    nextStarts.put(holder, holderStart);
    Map<String, String> nextDiffering = new TreeMap<>(differing);
    nextDiffering.put(lacking, differences);
    return new ContentRecord(nextStarts, nextDiffering, sentence, at);
  }

  /**
   * The same once {@code member} was rebuilt: its data is a fresh copy of a replica's, so it no
   * longer differs and its current server start is taken as verified when next seen.
   */
  ContentRecord rebuilt(String member) {
    Map<String, Long> nextStarts = new TreeMap<>(verifiedStarts);
    nextStarts.remove(member);
    Map<String, String> nextDiffering = new TreeMap<>(differing);
    nextDiffering.remove(member);
    return new ContentRecord(nextStarts, nextDiffering, last, lastAt);
  }
}
