package dev.bosun.mysql.client;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;

/**
 * A MariaDB {@code gtid_binlog_state}: the last GTID of every server that wrote in each domain of a
 * member's history ({@code 0-1-100,0-2-103}).
 *
 * <p>With gtid_strict_mode sequence numbers only grow within a domain's history, so the last GTID
 * of a server is the highest of that server there: a history whose last GTID of server s in domain
 * d is lower than another's (or that has none of s in d) lacks at least that other GTID. That tells
 * diverged histories apart where the positions cannot: a new primary's writes (0-2-101..103) on top
 * of 0-1-100 against the old primary's own 0-1-101..105.
 */
public final class MariaDbBinlogState {

  /** One domain and one server in it. */
  private record Origin(long domain, long serverId) implements Comparable<Origin> {
    @Override
    public int compareTo(Origin o) {
      return domain != o.domain
          ? Long.compare(domain, o.domain)
          : Long.compare(serverId, o.serverId);
    }
  }

  private final Map<Origin, Long> last;

  private MariaDbBinlogState(Map<Origin, Long> last) {
    this.last = last;
  }

  /** Parses a state; an empty or null text is the empty state. */
  public static MariaDbBinlogState parse(String state) {
    Map<Origin, Long> last = new TreeMap<>();
    MariaDbGtids.parseEach(
        state,
        (domain, serverId, sequence) ->
            last.merge(new Origin(domain, serverId), sequence, Math::max));
    return new MariaDbBinlogState(last);
  }

  /** Whether this history holds the last GTID of every server of {@code other}'s. */
  public boolean covers(MariaDbBinlogState other) {
    return other.last.entrySet().stream()
        .allMatch(e -> last.getOrDefault(e.getKey(), -1L) >= e.getValue());
  }

  /** The last GTIDs of this history that {@code other} lacks. */
  public String beyond(MariaDbBinlogState other) {
    return format(
        (origin, sequence) -> other.last.getOrDefault(origin, -1L) < sequence, last, Map.of());
  }

  /** Per server present in both, the lower last GTID: what both histories hold of that server. */
  public String common(MariaDbBinlogState other) {
    return format((origin, sequence) -> other.last.containsKey(origin), last, other.last);
  }

  private static String format(
      BiPredicate<Origin, Long> keep, Map<Origin, Long> from, Map<Origin, Long> lowerOf) {
    return from.entrySet().stream()
        .filter(e -> keep.test(e.getKey(), e.getValue()))
        .map(
            e ->
                e.getKey().domain()
                    + "-"
                    + e.getKey().serverId()
                    + "-"
                    + Math.min(e.getValue(), lowerOf.getOrDefault(e.getKey(), e.getValue())))
        .collect(Collectors.joining(","));
  }
}
