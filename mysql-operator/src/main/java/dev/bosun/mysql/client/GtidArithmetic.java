package dev.bosun.mysql.client;

/** Comparison of GTID positions of one flavour. */
public interface GtidArithmetic {

  /** How position a relates to position b. */
  enum Order {
    EQUAL,
    AHEAD,
    BEHIND,
    DIVERGED
  }

  /** Compares two executed positions. */
  Order compare(String a, String b);

  /**
   * Whether the replicated position is separate from the binlog position, so local writes on a
   * replica show as a binlog beyond it (MariaDB's gtid_slave_pos).
   */
  boolean tracksReplicatedPosition();

  /** Whether the position holds no transaction. */
  boolean isEmpty(String position);

  /**
   * Whether {@code position} holds transactions {@code reference} does not: everything an instance
   * has beyond a reference it should be contained in is errant.
   */
  default boolean hasBeyond(String position, String reference) {
    Order o = compare(position, reference);
    return o == Order.AHEAD || o == Order.DIVERGED;
  }

  /**
   * Everything either position holds: what a replica has once it applied what it received. Where
   * two MariaDB positions diverge in a domain, the higher sequence is kept (the candidate check
   * against every member finds the divergence).
   */
  String union(String a, String b);

  /** Whether a as far as or further than b (contains everything b has). */
  default boolean covers(String a, String b) {
    Order o = compare(a, b);
    return o == Order.EQUAL || o == Order.AHEAD;
  }

  /**
   * The history both positions surely share: per domain the lower sequence when the same server
   * wrote both last transactions, else nothing of that domain (MariaDB); the intersection (MySQL).
   */
  String common(String a, String b);

  /**
   * Whether history {@code a} holds every transaction of history {@code b}, histories as the state
   * query reads them (MariaDB: {@code gtid_binlog_state}, the last GTID of every server in each
   * domain; MySQL: the executed set). Positions alone cannot tell two MariaDB histories apart that
   * forked below their last transactions.
   */
  boolean historyCovers(String a, String b);

  /** What history {@code a} holds that {@code b} lacks, as GTIDs for a person; "" when nothing. */
  String historyBeyond(String a, String b);

  /** The part of two histories both surely hold, as GTIDs for a person; "" when none. */
  String historyCommon(String a, String b);
}
