package dev.bosun.mysql.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A MySQL GTID set ({@code uuid:1-5:7,uuid2:1-3}) with the set operations failover needs. */
public final class MySqlGtidSet {

  /** A closed interval of transaction numbers. */
  record Interval(long from, long to) {}

  private final Map<String, List<Interval>> byUuid;

  private MySqlGtidSet(Map<String, List<Interval>> byUuid) {
    this.byUuid = byUuid;
  }

  /** Parses the text of {@code @@gtid_executed} (line breaks allowed). */
  public static MySqlGtidSet parse(String text) {
    Map<String, List<Interval>> map = new TreeMap<>();
    if (text == null || text.isBlank()) {
      return new MySqlGtidSet(map);
    }
    for (String part : text.replace("\n", "").split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      String[] f = p.split(":");
      if (f.length < 2) {
        throw new IllegalArgumentException("not a MySQL GTID set: " + p);
      }
      String uuid = f[0].toLowerCase();
      List<Interval> list = map.computeIfAbsent(uuid, k -> new ArrayList<>());
      for (int i = 1; i < f.length; i++) {
        String[] range = f[i].split("-");
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        if (to < from) {
          throw new IllegalArgumentException("empty interval in GTID set: " + p);
        }
        list.add(new Interval(from, to));
      }
      map.put(uuid, normalise(list));
    }
    return new MySqlGtidSet(map);
  }

  private static List<Interval> normalise(List<Interval> in) {
    List<Interval> sorted = new ArrayList<>(in);
    sorted.sort((x, y) -> Long.compare(x.from(), y.from()));
    List<Interval> out = new ArrayList<>();
    for (Interval i : sorted) {
      if (!out.isEmpty() && out.get(out.size() - 1).to() + 1 >= i.from()) {
        Interval last = out.remove(out.size() - 1);
        out.add(new Interval(last.from(), Math.max(last.to(), i.to())));
      } else {
        out.add(i);
      }
    }
    return out;
  }

  /** Whether the set holds no transaction. */
  public boolean isEmpty() {
    return byUuid.values().stream().allMatch(List::isEmpty);
  }

  /** The transactions of this set that {@code other} does not hold (GTID_SUBTRACT). */
  public MySqlGtidSet minus(MySqlGtidSet other) {
    Map<String, List<Interval>> out = new TreeMap<>();
    for (Map.Entry<String, List<Interval>> e : byUuid.entrySet()) {
      List<Interval> remaining = new ArrayList<>(e.getValue());
      for (Interval cut : other.byUuid.getOrDefault(e.getKey(), List.of())) {
        List<Interval> next = new ArrayList<>();
        for (Interval r : remaining) {
          if (cut.to() < r.from() || cut.from() > r.to()) {
            next.add(r);
            continue;
          }
          if (r.from() < cut.from()) {
            next.add(new Interval(r.from(), cut.from() - 1));
          }
          if (r.to() > cut.to()) {
            next.add(new Interval(cut.to() + 1, r.to()));
          }
        }
        remaining = next;
      }
      if (!remaining.isEmpty()) {
        out.put(e.getKey(), remaining);
      }
    }
    return new MySqlGtidSet(out);
  }

  /** The transactions of either set. */
  public MySqlGtidSet union(MySqlGtidSet other) {
    Map<String, List<Interval>> out = new TreeMap<>();
    for (Map<String, List<Interval>> m : List.of(byUuid, other.byUuid)) {
      m.forEach((uuid, list) -> out.computeIfAbsent(uuid, k -> new ArrayList<>()).addAll(list));
    }
    out.replaceAll((uuid, list) -> normalise(list));
    return new MySqlGtidSet(out);
  }

  /** Whether every transaction of {@code other} is in this set (GTID_SUBSET(other, this)). */
  public boolean contains(MySqlGtidSet other) {
    return other.minus(this).isEmpty();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, List<Interval>> e : byUuid.entrySet()) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(e.getKey());
      for (Interval i : e.getValue()) {
        sb.append(':').append(i.from());
        if (i.to() != i.from()) {
          sb.append('-').append(i.to());
        }
      }
    }
    return sb.toString();
  }
}
