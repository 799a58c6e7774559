package dev.bosun.mysql.testing;

import dev.bosun.mysql.plan.Address;
import java.util.List;
import java.util.Map;

/** What lab members say of their history, for the report of a row gone missing. */
public final class MemberEvidence {

  private MemberEvidence() {}

  /**
   * What each member says of its history when a row is missing: its GTID positions and what its
   * error log tells of crash recovery and replication (a truncated binlog, rolled-back
   * transactions, a replica that skipped ahead), so a loss that a replay does not repeat still
   * names its cause.
   */
  public static String of(
      Map<String, MariaDbServers.Server> servers, Map<String, Address> members) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Address> m : members.entrySet()) {
      out.append(m.getKey()).append(": ");
      try {
        out.append(
            AppClient.adminQuery(
                m.getValue(),
                "SELECT CONCAT('binlog ', @@GLOBAL.gtid_binlog_pos, ', current ',"
                    + " @@GLOBAL.gtid_current_pos, ', slave ', @@GLOBAL.gtid_slave_pos)"));
      } catch (java.sql.SQLException e) {
        out.append("unreadable: ").append(e.getMessage());
      }
      out.append('\n');
      MariaDbServers.Server server = servers.get(m.getKey());
      if (server != null) {
        List<String> told =
            server
                .errorLogTail(400)
                .lines()
                .filter(
                    l ->
                        l.matches(
                            "(?i).*(recover|truncat|roll|crash|gtid|slave|binlog|prepared|xid).*"))
                .toList();
        told.subList(Math.max(0, told.size() - 40), told.size())
            .forEach(l -> out.append("  ").append(l).append('\n'));
      }
    }
    return out.toString();
  }
}
