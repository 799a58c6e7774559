package dev.bosun.mysql.testing;

import dev.bosun.mysql.plan.Address;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * An application as users run it: a user without admin rights (so read_only stops it) writing
 * numbered rows to whichever instance is the primary, remembering which inserts were acknowledged.
 */
public final class AppClient {

  public static final String USER = "app";
  public static final String PASSWORD = "app-secret-1";

  /** Creates the app user and table on the primary (as the operator user). */
  public static void createSchema(Address primary) throws SQLException {
    try (Connection c = admin(primary);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS app");
      s.execute("CREATE TABLE IF NOT EXISTS app.items (id BIGINT PRIMARY KEY, note VARCHAR(64))");
      s.execute("CREATE USER IF NOT EXISTS 'app'@'%' IDENTIFIED BY '" + PASSWORD + "'");
      s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON app.* TO 'app'@'%'");
    }
  }

  /**
   * Waits until each replica has applied everything the primary has logged. A drill's fault then
   * hits a settled replica: a replica killed while applying DDL may apply it again after its
   * restart and stop on "table exists", which is another drill than the one meant.
   */
  public static void awaitApplied(Address primary, List<Address> replicas) throws SQLException {
    String position = adminQuery(primary, "SELECT @@gtid_binlog_pos");
    for (Address replica : replicas) {
      String waited = adminQuery(replica, "SELECT MASTER_GTID_WAIT('" + position + "', 8)");
      if (!"0".equals(waited)) {
        throw new SQLException(replica + " did not apply the primary's " + position + " in 8 s");
      }
    }
  }

  /** A connection as the operator user (the caller closes it). */
  public static Connection admin(Address a) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", MariaDbServers.CREDENTIALS.operatorUser());
    p.setProperty("password", MariaDbServers.CREDENTIALS.operatorPassword());
    p.setProperty("connectTimeout", "2000");
    p.setProperty("socketTimeout", "10000");
    return DriverManager.getConnection("jdbc:mariadb://" + a.host() + ":" + a.port() + "/", p);
  }

  /**
   * Runs one statement as root@'%', the account a cluster's applications were given before they had
   * their own.
   */
  public static void asRoot(Address a, String sql) throws SQLException {
    try (Connection c = connect(a, "root", MariaDbServers.ROOT_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** A connection as {@code user} (the caller closes it). */
  public static Connection connect(Address a, String user, String password) throws SQLException {
    return connect(a, user, password, "", 2000, 10000);
  }

  private static Connection connect(
      Address a, String user, String password, String database, int connectMs, int socketMs)
      throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", Integer.toString(connectMs));
    p.setProperty("socketTimeout", Integer.toString(socketMs));
    return DriverManager.getConnection(
        "jdbc:mariadb://" + a.host() + ":" + a.port() + "/" + database, p);
  }

  static Connection app(Address a) throws SQLException {
    return connect(a, USER, PASSWORD, "app", 1000, 5000);
  }

  /** Inserts one row as the app user; throws when the instance refuses (read-only, down). */
  public static void insert(Address a, long id) throws SQLException {
    try (Connection c = app(a);
        PreparedStatement ps = c.prepareStatement("INSERT INTO items (id, note) VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, "row " + id);
      ps.executeUpdate();
    }
  }

  /**
   * Inserts one row as the app user over a connection bound to {@code localAddress} (a drill's
   * client identity, so its link can be cut on its own).
   */
  public static void insertFrom(String localAddress, Address a, long id) throws SQLException {
    insertFrom(localAddress, a, id, USER, PASSWORD);
  }

  /**
   * Inserts one row as root@'%' over a connection bound to {@code localAddress}: the account
   * applications were given before they had their own, which a fence must stop as well.
   */
  public static void insertAsRootFrom(String localAddress, Address a, long id) throws SQLException {
    insertFrom(localAddress, a, id, "root", MariaDbServers.ROOT_PASSWORD);
  }

  private static void insertFrom(
      String localAddress, Address a, long id, String user, String password) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", "1000");
    p.setProperty("socketTimeout", "3000");
    p.setProperty("localSocketAddress", localAddress);
    try (Connection c =
            DriverManager.getConnection("jdbc:mariadb://" + a.host() + ":" + a.port() + "/app", p);
        PreparedStatement ps = c.prepareStatement("INSERT INTO items (id, note) VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, "row " + id);
      ps.executeUpdate();
    }
  }

  /** Ids present on an instance. */
  public static List<Long> ids(Address a) throws SQLException {
    try (Connection c = admin(a);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM app.items ORDER BY id")) {
      List<Long> ids = new ArrayList<>();
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
      return ids;
    }
  }

  /**
   * Waits (up to {@code within}) for a read of {@code a} that returns exactly {@code expected},
   * each id once, and fails with what the server holds when none does. A server that crashed may
   * for a moment answer a scan with some rows twice while it cleans up after recovery (seen twice
   * in CI: ids 5 to 9 twice in a primary-keyed table right after a restart); rows held twice would
   * stay, a read anomaly passes. Each anomaly seen is printed, so it shows in the test log.
   */
  public static void awaitExactly(Address a, List<Long> expected, Duration within) {
    List<Long> want = expected.stream().sorted().toList();
    AtomicReference<List<Long>> last = new AtomicReference<>(List.of());
    try {
      Awaitility.await("a read of exactly " + want.size() + " rows from " + a)
          .atMost(within)
          .pollInterval(java.time.Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () -> {
                List<Long> read = ids(a);
                if (!read.equals(want) && !read.equals(last.get())) {
                  System.out.println(a + " answered " + read.size() + " ids: " + read);
                }
                last.set(read);
                return read.equals(want);
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "expected ids "
              + want
              + " on "
              + a
              + ", the last read gave "
              + last.get()
              + "; "
              + diagnosis(a),
          e);
    }
  }

  private static String diagnosis(Address a) {
    StringBuilder sb = new StringBuilder();
    for (String sql :
        List.of(
            "SELECT COUNT(*) FROM app.items",
            "SELECT COUNT(DISTINCT id) FROM app.items",
            "CHECK TABLE app.items EXTENDED",
            "SELECT @@gtid_current_pos")) {
      try {
        sb.append(sql).append(" -> ").append(adminQuery(a, sql)).append("; ");
      } catch (SQLException e) {
        sb.append(sql).append(" failed: ").append(e.getMessage()).append("; ");
      }
    }
    return sb.toString();
  }

  /** Runs one SQL statement as the operator user and returns the first column of the first row. */
  public static String adminQuery(Address a, String sql) throws SQLException {
    try (Connection c = admin(a);
        Statement s = c.createStatement()) {
      if (!s.execute(sql)) {
        return null;
      }
      try (ResultSet rs = s.getResultSet()) {
        return rs.next() ? rs.getString(rs.getMetaData().getColumnCount()) : null;
      }
    }
  }

  /** A writer thread that keeps inserting to the current primary, one row at a time. */
  public static final class Writer implements AutoCloseable {
    private final Thread thread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentLinkedQueue<Long> acknowledged = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Long> failures = new AtomicReference<>(0L);

    public Writer(Supplier<Address> primary, long firstId) {
      thread =
          new Thread(
              () -> {
                long id = firstId;
                while (running.get()) {
                  try {
                    insert(primary.get(), id);
                    acknowledged.add(id);
                    id++;
                  } catch (SQLException e) {
                    // Not acknowledged: the next attempt uses a fresh id, like a client that
                    // does not know whether the failed insert committed.
                    failures.updateAndGet(f -> f + 1);
                    id++;
                  }
                }
              },
              "app-writer");
      thread.setDaemon(true);
      thread.start();
    }

    public List<Long> acknowledged() {
      return List.copyOf(acknowledged);
    }

    public int acknowledgedCount() {
      return acknowledged.size();
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join(30_000);
    }
  }

  private AppClient() {}
}
