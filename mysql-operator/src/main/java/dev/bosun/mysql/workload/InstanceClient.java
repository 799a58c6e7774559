package dev.bosun.mysql.workload;

import dev.bosun.mysql.topology.Address;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * JDBC access to one instance as the operator's user. Connect and socket timeouts are always set: a
 * hung server (a partition, SIGSTOP) otherwise never errors. Statement text is never put in
 * exceptions or logs, because some statements carry passwords.
 */
public final class InstanceClient {

  private final Address address;
  private final Credentials credentials;
  private final Duration timeout;
  private final String jdbcOptions;

  /** A client for one address; {@code timeout} bounds connecting and every query. */
  public InstanceClient(Address address, Credentials credentials, Duration timeout) {
    this(address, credentials, timeout, "");
  }

  /** A client whose JDBC URL carries the flavour's options ({@link #url}). */
  public InstanceClient(
      Address address, Credentials credentials, Duration timeout, String jdbcOptions) {
    this.address = address;
    this.credentials = credentials;
    this.timeout = timeout;
    this.jdbcOptions = jdbcOptions;
  }

  /** The JDBC URL of an instance with the flavour's options ("" or "?k=v&..."). */
  public static String url(Address address, String jdbcOptions) {
    return "jdbc:mariadb://" + address.host() + ":" + address.port() + "/" + jdbcOptions;
  }

  /** Opens a connection; the caller closes it. */
  public Connection connect() throws SQLException {
    return connect(timeout);
  }

  Connection connect(Duration socketTimeout) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", credentials.operatorUser());
    p.setProperty("password", credentials.operatorPassword());
    p.setProperty("connectTimeout", Long.toString(timeout.toMillis()));
    p.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    return DriverManager.getConnection(url(address, jdbcOptions), p);
  }

  /** Runs statements in order on one connection; the failing step is named, its text is not. */
  public void execute(String step, List<String> statements) throws InstanceException {
    execute(step, statements, timeout);
  }

  /** The same with another bound on each statement (one that may wait for others). */
  public void execute(String step, List<String> statements, Duration socketTimeout)
      throws InstanceException {
    try (Connection c = connect(socketTimeout);
        Statement s = c.createStatement()) {
      int n = 0;
      for (String sql : statements) {
        n++;
        try {
          s.execute(sql);
        } catch (SQLException e) {
          throw new InstanceException(
              address + ": step " + step + " failed at statement " + n + ": " + safe(e), e);
        }
      }
    } catch (SQLException e) {
      throw new InstanceException(address + ": step " + step + ": " + safe(e), e);
    }
  }

  /**
   * Runs statements on one connection, going on past a statement that fails (e.g. a KILL of a
   * connection that ended meanwhile); only a failure to connect is an error.
   */
  public void executeEach(String step, List<String> statements) throws InstanceException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        try {
          s.execute(sql);
        } catch (SQLException ignored) {
          // The next statement is independent of this one.
        }
      }
    } catch (SQLException e) {
      throw new InstanceException(address + ": step " + step + ": " + safe(e), e);
    }
  }

  /** Runs a query and returns its rows as column-name maps. */
  public List<Map<String, String>> query(String sql, Duration socketTimeout)
      throws InstanceException {
    try (Connection c = connect(socketTimeout);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rows(rs);
    } catch (SQLException e) {
      throw new InstanceException(address + ": query failed: " + safe(e), e);
    }
  }

  static List<Map<String, String>> rows(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    List<Map<String, String>> rows = new ArrayList<>();
    while (rs.next()) {
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        row.put(md.getColumnLabel(i), rs.getString(i));
      }
      rows.add(row);
    }
    return rows;
  }

  /** The SQL state and error code only: driver messages may echo the statement. */
  static String safe(SQLException e) {
    return "SQL error " + e.getErrorCode() + " (state " + e.getSQLState() + ")";
  }

  /** Where this client connects. */
  public Address address() {
    return address;
  }
}
