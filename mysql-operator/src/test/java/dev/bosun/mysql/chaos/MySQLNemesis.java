package dev.bosun.mysql.chaos;

import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.common.testing.chaos.Nemesis;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.Endpoint;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.common.testing.drill.TestHost;
import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.execute.FailoverBoundaries;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.ScaleDown;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.LabOperator;
import dev.bosun.mysql.testing.MariaDbServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MySQL operator's faults in a network lab: members crashed (down for the fault's length, then
 * restarted on their data directory, as a kubelet would), frozen, partitioned from each other, from
 * the operator or from the clients; the operator restarted, or killed at a failover boundary; a
 * switchover requested; the cluster scaled to two members and back; the cluster object deleted and
 * re-created over its volumes (the operator forgets its status); a member's rebuild requested (the
 * request withdrawn when the fault heals, if the operator has not taken it yet); a member crashed
 * and brought back without its newest row while its GTID position still claims it, as MariaDB's
 * crash recovery left a former primary in chaos seed 840758; a backup asked for ({@link
 * LabBackups}: taken while the faults go on, restored once the cluster is steady).
 */
final class MySQLNemesis implements Nemesis {

  /** A crash whose recovery drops the member's newest row and keeps its GTID position. */
  static final String CRASH_LOSING_A_ROW = "crash-losing-a-row";

  /** A backup asked for, taken as the MySQLBackup reconciler takes it. */
  static final String BACK_UP = "back-up";

  /** The last member, the one a scale-down removes (the StatefulSet's highest ordinal). */
  private static final String LAST = "db-2";

  private final NetworkLab lab;
  private final Map<String, MariaDbServers.Server> servers;
  private final Map<String, TestHost> hosts;
  private final ClientIdentity operatorId;
  private final ClientIdentity clientsId;
  private final LabOperator cluster;
  private final OperatorLoop loop;
  private final LabBackups backups;
  private final Map<String, Integer> crashed = new HashMap<>();
  private final Set<String> frozen = new HashSet<>();
  private final Map<List<Endpoint>, Integer> cuts = new HashMap<>();
  private boolean scaledDown;

  MySQLNemesis(
      NetworkLab lab,
      Map<String, MariaDbServers.Server> servers,
      Map<String, TestHost> hosts,
      ClientIdentity operatorId,
      ClientIdentity clientsId,
      LabOperator cluster,
      OperatorLoop loop,
      LabBackups backups) {
    this.lab = lab;
    this.servers = servers;
    this.hosts = hosts;
    this.operatorId = operatorId;
    this.clientsId = clientsId;
    this.cluster = cluster;
    this.loop = loop;
    this.backups = backups;
  }

  /** The menu: kinds, weights, targets and lengths. */
  static List<FaultKind> menu() {
    List<String> members = List.of("db-0", "db-1", "db-2");
    return List.of(
        FaultKind.lasting("crash", 3, members, seconds(2), seconds(8)),
        FaultKind.lasting(CRASH_LOSING_A_ROW, 1, members, seconds(2), seconds(8)),
        FaultKind.lasting("freeze", 2, members, seconds(2), seconds(8)),
        FaultKind.lasting(
            "partition",
            2,
            List.of("db-0|db-1,db-2", "db-1|db-0,db-2", "db-2|db-0,db-1", "db-0|db-1"),
            seconds(3),
            seconds(10)),
        FaultKind.lasting("cut-from-operator", 2, members, seconds(3), seconds(10)),
        FaultKind.lasting("cut-from-clients", 1, members, seconds(3), seconds(8)),
        FaultKind.instant("restart-operator", 2, List.of("operator")),
        FaultKind.lasting("operator-dies-at", 2, FailoverBoundaries.ALL, seconds(3), seconds(12)),
        FaultKind.lasting("switchover-to", 2, members, seconds(3), seconds(10)),
        FaultKind.lasting("scale-to-2", 1, List.of("cluster"), seconds(4), seconds(10)),
        FaultKind.instant("re-create-over-volumes", 2, List.of("cluster")),
        FaultKind.lasting("rebuild-requested", 2, members, seconds(3), seconds(10)));
  }

  /**
   * Faults drawn besides {@link #menu()}, on a random stream of their own (so that every seed
   * recorded before they were added replays its faults as they were): a backup asked for.
   */
  static List<FaultKind> besides() {
    return List.of(FaultKind.instant(BACK_UP, 1, List.of("the backup volume")));
  }

  /** How many faults of {@link #besides()} a schedule has. */
  static final int BESIDES = 1;

  private static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  @Override
  public void inject(Fault f) {
    String t = f.target();
    switch (f.kind()) {
      case "crash", CRASH_LOSING_A_ROW -> {
        crashed.merge(t, 1, Integer::sum);
        frozen.remove(t);
        servers.get(t).kill();
      }
      case "freeze" -> {
        if (!servers.get(t).isAlive()) {
          throw new IllegalStateException(t + " is not running");
        }
        frozen.add(t);
        servers.get(t).pause();
      }
      case "partition" -> forEachPair(t, (a, b) -> cut(hosts.get(a), hosts.get(b)));
      case "cut-from-operator" -> cut(operatorId, hosts.get(t));
      case "cut-from-clients" -> cut(clientsId, hosts.get(t));
      case "restart-operator" -> loop.restart();
      case "operator-dies-at" -> loop.dieAt(t);
      case "switchover-to" -> cluster.switchoverTarget(t);
      case "scale-to-2" -> scaleDown();
      case "re-create-over-volumes" -> cluster.forget();
      case "rebuild-requested" -> cluster.requestRebuild(t);
      case BACK_UP -> backups.ask(f.index());
      default -> throw new IllegalArgumentException("no such fault kind: " + f.kind());
    }
  }

  @Override
  public void heal(Fault f) {
    String t = f.target();
    switch (f.kind()) {
      case "crash" -> {
        crashed.computeIfPresent(t, (k, n) -> n == 1 ? null : n - 1);
        startIfWanted(t);
      }
      case CRASH_LOSING_A_ROW -> {
        crashed.computeIfPresent(t, (k, n) -> n == 1 ? null : n - 1);
        if (startIfWanted(t)) {
          loseNewestRow(t);
        }
      }
      case "freeze" -> {
        if (frozen.remove(t)) {
          servers.get(t).resume();
        }
      }
      case "partition" -> forEachPair(t, (a, b) -> heal(hosts.get(a), hosts.get(b)));
      case "cut-from-operator" -> heal(operatorId, hosts.get(t));
      case "cut-from-clients" -> heal(clientsId, hosts.get(t));
      case "operator-dies-at" -> loop.dieAt(null);
      case "switchover-to" -> cluster.switchoverTarget(null);
      case "scale-to-2" -> scaleUp();
      case "rebuild-requested" -> {
        if (t.equals(cluster.rebuildRequested())) {
          cluster.requestRebuild(null);
        }
      }
      default -> throw new IllegalArgumentException("nothing to heal for " + f.kind());
    }
  }

  @Override
  public void healAll() {
    loop.dieAt(null);
    cluster.switchoverTarget(null);
    cluster.requestRebuild(null);
    for (String name : frozen) {
      servers.get(name).resume();
    }
    frozen.clear();
    crashed.clear();
    cuts.clear();
    lab.healAll();
    if (scaledDown) {
      scaleUp();
    }
    for (String name : servers.keySet()) {
      startIfWanted(name);
    }
  }

  /**
   * What the reconciler does before it shrinks the StatefulSet: it asks the planner whether the
   * member that goes holds anything the primary lacks, and never removes the primary itself.
   */
  private void scaleDown() {
    TopologyController.Tick last = cluster.last();
    if (LAST.equals(cluster.record().primary())) {
      throw new IllegalStateException(LAST + " is the primary");
    }
    String holdBack =
        last == null ? "no round yet" : ScaleDown.holdBack(last.observed(), 2, new MariaDbGtids());
    if (holdBack != null) {
      throw new IllegalStateException("the reconciler holds back: " + holdBack);
    }
    cluster.desired(2);
    cluster.remove(LAST);
    scaledDown = true;
    frozen.remove(LAST);
    servers.get(LAST).stop();
  }

  private void scaleUp() {
    scaledDown = false;
    startIfWanted(LAST);
    cluster.add(LAST, servers.get(LAST).address());
    cluster.desired(3);
  }

  /**
   * Starts {@code name} on its data directory unless it is down on purpose or already up; true when
   * it started it now.
   */
  private boolean startIfWanted(String name) {
    boolean wanted = !crashed.containsKey(name) && !(scaledDown && LAST.equals(name));
    if (wanted && !servers.get(name).isAlive()) {
      servers.get(name).start();
      return true;
    }
    return false;
  }

  /**
   * What seed 840758's recovery did: the member's newest row gone, outside the binlog, so its GTID
   * position still claims the transaction and replication never brings it back. Done as the server
   * answers again, before the operator (which attaches a member first) can compare it.
   */
  private void loseNewestRow(String name) {
    try (Connection c = AppClient.admin(servers.get(name).address());
        Statement st = c.createStatement()) {
      st.execute("SET SESSION sql_log_bin=0");
      st.execute("DELETE FROM app.items ORDER BY id DESC LIMIT 1");
    } catch (SQLException e) {
      // No table yet, or the member unreachable: the fault was a plain crash.
      System.err.println("[chaos] " + name + " kept its newest row: " + e.getMessage());
    }
  }

  private interface PairAction {
    void apply(String a, String b);
  }

  /** {@code "db-0|db-1,db-2"}: every pair across the bar. */
  private static void forEachPair(String target, PairAction action) {
    String[] sides = target.split("\\|");
    List<String> right = new ArrayList<>(List.of(sides[1].split(",")));
    for (String a : sides[0].split(",")) {
      for (String b : right) {
        action.apply(a, b);
      }
    }
  }

  /** Cuts a link; overlapping faults may cut one link twice, and it heals with the last of them. */
  private void cut(Endpoint a, Endpoint b) {
    if (cuts.merge(List.of(a, b), 1, Integer::sum) == 1) {
      lab.cut(a, b);
    }
  }

  private void heal(Endpoint a, Endpoint b) {
    Integer left = cuts.computeIfPresent(List.of(a, b), (k, n) -> n == 1 ? null : n - 1);
    if (left == null) {
      lab.heal(a, b);
    }
  }
}
