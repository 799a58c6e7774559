package dev.bosun.mysql.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * MariaDB GTID positions: one {@code domain-server-sequence} per replication domain, not sets.
 *
 * <p>Only the last transaction of each domain is known, so two positions with the same sequence but
 * another origin server have diverged, and a higher sequence is taken as containing the lower.
 * Divergence below the last sequence is caught by the replica itself (errors 1236 and 1950 with
 * gtid_strict_mode) and by the promotion point recorded at failover.
 */
public final class MariaDbGtids implements GtidArithmetic {

  /** The last transaction of one domain. */
  record Last(long serverId, long sequence) {}

  /** Parses {@code 0-1-10,1-2-5}; an empty or null text is the empty position. */
  static Map<Long, Last> parse(String position) {
    Map<Long, Last> byDomain = new LinkedHashMap<>();
    parseEach(
        position,
        (domain, serverId, sequence) -> byDomain.put(domain, new Last(serverId, sequence)));
    return byDomain;
  }

  /** Receives one {@code domain-server-sequence} of a list. */
  @FunctionalInterface
  interface GtidSink {
    void accept(long domain, long serverId, long sequence);
  }

  /** Hands each GTID of a comma-separated list to {@code sink}; empty or null is no GTID. */
  static void parseEach(String list, GtidSink sink) {
    if (list == null || list.isBlank()) {
      return;
    }
    for (String part : list.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      String[] f = p.split("-");
      if (f.length != 3) {
        throw new IllegalArgumentException("not a MariaDB GTID: " + p);
      }
      sink.accept(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]));
    }
  }

  @Override
  public Order compare(String a, String b) {
    Map<Long, Last> pa = parse(a);
    Map<Long, Last> pb = parse(b);
    boolean ahead = false;
    boolean behind = false;
    for (Map.Entry<Long, Last> e : pa.entrySet()) {
      Last other = pb.get(e.getKey());
      if (other == null) {
        ahead = true;
      } else if (e.getValue().sequence() > other.sequence()) {
        ahead = true;
      } else if (e.getValue().sequence() < other.sequence()) {
        behind = true;
      } else if (e.getValue().serverId() != other.serverId()) {
        return Order.DIVERGED;
      }
    }
    for (Long domain : pb.keySet()) {
      if (!pa.containsKey(domain)) {
        behind = true;
      }
    }
    if (ahead && behind) {
      return Order.DIVERGED;
    }
    return ahead ? Order.AHEAD : behind ? Order.BEHIND : Order.EQUAL;
  }

  @Override
  public String union(String a, String b) {
    Map<Long, Last> out = new TreeMap<>(parse(a));
    parse(b)
        .forEach(
            (domain, last) ->
                out.merge(domain, last, (x, y) -> y.sequence() > x.sequence() ? y : x));
    return format(out);
  }

  private static String format(Map<Long, Last> out) {
    StringBuilder sb = new StringBuilder();
    out.forEach(
        (domain, last) -> {
          if (sb.length() > 0) {
            sb.append(',');
          }
          sb.append(domain).append('-').append(last.serverId()).append('-').append(last.sequence());
        });
    return sb.toString();
  }

  @Override
  public String common(String a, String b) {
    Map<Long, Last> pb = parse(b);
    Map<Long, Last> out = new TreeMap<>();
    parse(a)
        .forEach(
            (domain, x) -> {
              Last y = pb.get(domain);
              if (y == null) {
                return;
              }
              // Last transactions from two servers say nothing about where the histories
              // forked: nothing in the domain is taken as shared.
              if (x.serverId() == y.serverId()) {
                out.put(domain, x.sequence() <= y.sequence() ? x : y);
              }
            });
    return format(out);
  }

  /**
   * {@code reference} moved forward, domain by domain, to {@code later} where the same server wrote
   * both: what a replica applied since the reference was read is part of its source's history, not
   * its own.
   */
  public static String advance(String reference, String later) {
    Map<Long, Last> out = new TreeMap<>(parse(reference));
    parse(later)
        .forEach(
            (domain, l) -> {
              Last r = out.get(domain);
              if (r != null && r.serverId() == l.serverId() && l.sequence() > r.sequence()) {
                out.put(domain, l);
              }
            });
    return format(out);
  }

  /** Whether one transaction's GTID ({@code d-s-n}) lies beyond {@code reference} in its domain. */
  public static boolean beyond(String gtid, String reference) {
    Map<Long, Last> one = parse(gtid);
    Map<Long, Last> ref = parse(reference);
    for (Map.Entry<Long, Last> e : one.entrySet()) {
      Last r = ref.get(e.getKey());
      if (r == null || e.getValue().sequence() > r.sequence()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean historyCovers(String a, String b) {
    return MariaDbBinlogState.parse(a).covers(MariaDbBinlogState.parse(b));
  }

  @Override
  public String historyBeyond(String a, String b) {
    return MariaDbBinlogState.parse(a).beyond(MariaDbBinlogState.parse(b));
  }

  @Override
  public String historyCommon(String a, String b) {
    return MariaDbBinlogState.parse(a).common(MariaDbBinlogState.parse(b));
  }

  @Override
  public boolean isEmpty(String position) {
    return parse(position).isEmpty();
  }

  @Override
  public boolean tracksReplicatedPosition() {
    return true;
  }
}
