package dev.bosun.mysql.plan;

import java.util.Map;
import java.util.Set;

/**
 * What is known of the members' data since their servers last started. A server that restarted went
 * through crash recovery, which MariaDB 10.11 does not always get right (rows lost or doubled, see
 * the module README): its data is compared with the primary's before it is trusted again.
 *
 * @param supported whether this flavour's contents can be compared
 * @param verifiedStarts member to the start (epoch seconds) of the server whose data was last
 *     compared and found the same, or first seen
 * @param differing members whose data differed from the primary's, with what differed: kept out as
 *     errant until rebuilt
 * @param running the replica whose comparison runs in the background now, or null
 * @param resting replicas whose last comparison could not be made, not tried again yet
 * @param finished a comparison that ended and is not recorded yet, or null
 */
public record ContentState(
    boolean supported,
    Map<String, Long> verifiedStarts,
    Map<String, String> differing,
    String running,
    Set<String> resting,
    Finished finished) {

  public ContentState {
    verifiedStarts = Map.copyOf(verifiedStarts);
    differing = Map.copyOf(differing);
    resting = Set.copyOf(resting);
  }

  /** With no replica resting. */
  public ContentState(
      boolean supported,
      Map<String, Long> verifiedStarts,
      Map<String, String> differing,
      String running,
      Finished finished) {
    this(supported, verifiedStarts, differing, running, Set.of(), finished);
  }

  /**
   * A comparison that ended: the check it ran, what differed (null when the data was the same), why
   * it could not compare (null when it did), what it compared, in words, and which side lacks rows:
   * {@code lacking} is "replica" or "primary" when every difference is rows or tables that side
   * lacks and the other holds no row twice (what a lossy recovery leaves), null when neither, both,
   * or when the side holding more holds a row twice (what a recovery that doubles rows leaves).
   */
  public record Finished(
      Step.CheckContent check, String differences, String failure, String summary, String lacking) {

    /** A comparison whose differences (if any) do not tell which side lacks rows. */
    public Finished(Step.CheckContent check, String differences, String failure, String summary) {
      this(check, differences, failure, summary, null);
    }

    /** The side that lacks rows. */
    public static final String REPLICA = "replica";

    /** The side that lacks rows. */
    public static final String PRIMARY = "primary";
  }

  /** Nothing known and nothing running: no comparison until servers have been seen. */
  public static ContentState none() {
    return new ContentState(false, Map.of(), Map.of(), null, null);
  }
}
