package dev.bosun.mysql.client;

/** MySQL GTID positions are sets: containment decides, so divergence anywhere is found. */
public final class MySqlGtids implements GtidArithmetic {

  @Override
  public Order compare(String a, String b) {
    MySqlGtidSet sa = MySqlGtidSet.parse(a);
    MySqlGtidSet sb = MySqlGtidSet.parse(b);
    boolean aHasAll = sa.contains(sb);
    boolean bHasAll = sb.contains(sa);
    if (aHasAll && bHasAll) {
      return Order.EQUAL;
    }
    if (aHasAll) {
      return Order.AHEAD;
    }
    return bHasAll ? Order.BEHIND : Order.DIVERGED;
  }

  @Override
  public String union(String a, String b) {
    return MySqlGtidSet.parse(a).union(MySqlGtidSet.parse(b)).toString();
  }

  @Override
  public String common(String a, String b) {
    MySqlGtidSet x = MySqlGtidSet.parse(a);
    return x.minus(x.minus(MySqlGtidSet.parse(b))).toString();
  }

  @Override
  public boolean historyCovers(String a, String b) {
    return covers(a, b);
  }

  @Override
  public String historyBeyond(String a, String b) {
    return MySqlGtidSet.parse(a).minus(MySqlGtidSet.parse(b)).toString();
  }

  @Override
  public String historyCommon(String a, String b) {
    return common(a, b);
  }

  @Override
  public boolean isEmpty(String position) {
    return MySqlGtidSet.parse(position).isEmpty();
  }

  @Override
  public boolean tracksReplicatedPosition() {
    return false;
  }
}
