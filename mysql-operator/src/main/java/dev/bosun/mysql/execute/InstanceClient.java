package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.Address;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
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

  /**
   * One connection for several statements and queries (each new connection is a TCP and an
   * authentication round trip); the caller closes it.
   */
  public Session open() throws InstanceException {
    return open("connect", timeout);
  }

  private Session open(String step, Duration socketTimeout) throws InstanceException {
    Properties p = new Properties();
    p.setProperty("user", credentials.operatorUser());
    p.setProperty("password", credentials.operatorPassword());
    p.setProperty("connectTimeout", Long.toString(timeout.toMillis()));
    p.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    try {
      return new Session(DriverManager.getConnection(url(address, jdbcOptions), p), socketTimeout);
    } catch (SQLException e) {
      throw new InstanceException(address + ": step " + step + ": " + safe(e), e);
    }
  }

  /** Runs statements in order on one connection; the failing step is named, its text is not. */
  public void execute(String step, List<String> statements) throws InstanceException {
    execute(step, statements, timeout);
  }

  /** The same with another bound on each statement (one that may wait for others). */
  public void execute(String step, List<String> statements, Duration socketTimeout)
      throws InstanceException {
    try (Session s = open(step, socketTimeout)) {
      s.execute(step, statements, socketTimeout);
    }
  }

  /**
   * Runs statements on one connection, going on past a statement that fails (e.g. a KILL of a
   * connection that ended meanwhile); only a failure to connect is an error.
   */
  public void executeEach(String step, List<String> statements) throws InstanceException {
    try (Session s = open(step, timeout)) {
      s.executeEach(statements);
    }
  }

  /** Runs a query and returns its rows as column-name maps. */
  public List<Map<String, String>> query(String sql, Duration socketTimeout)
      throws InstanceException {
    try (Session s = open("query", socketTimeout)) {
      return s.query(sql, socketTimeout);
    }
  }

  /** One open connection to the instance: statements and queries run on it in turn. */
  public final class Session implements AutoCloseable {

    private final Connection connection;
    private Duration socketTimeout;

    private Session(Connection connection, Duration socketTimeout) {
      this.connection = connection;
      this.socketTimeout = socketTimeout;
    }

    /** A query bounded by the client's timeout. */
    public List<Map<String, String>> query(String sql) throws InstanceException {
      return query(sql, timeout);
    }

    /** A query bounded by {@code bound} (one that may wait, e.g. for an applier). */
    public List<Map<String, String>> query(String sql, Duration bound) throws InstanceException {
      try {
        bound(bound);
        try (Statement s = connection.createStatement();
            ResultSet rs = s.executeQuery(sql)) {
          return rows(rs);
        }
      } catch (SQLException e) {
        throw new InstanceException(address + ": query failed: " + safe(e), e);
      }
    }

    /** Statements in order, each bounded by the client's timeout. */
    public void execute(String step, List<String> statements) throws InstanceException {
      execute(step, statements, timeout);
    }

    /** Statements in order, each bounded by {@code bound} (one that may wait on the server). */
    public void execute(String step, List<String> statements, Duration bound)
        throws InstanceException {
      try (Statement s = createStatement(step, bound)) {
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

    private void executeEach(List<String> statements) throws InstanceException {
      try (Statement s = createStatement("each", timeout)) {
        for (String sql : statements) {
          try {
            s.execute(sql);
          } catch (SQLException ignored) {
            // The next statement is independent of this one.
          }
        }
      } catch (SQLException e) {
        throw new InstanceException(address + ": step each: " + safe(e), e);
      }
    }

    private Statement createStatement(String step, Duration bound) throws InstanceException {
      try {
        bound(bound);
        return connection.createStatement();
      } catch (SQLException e) {
        throw new InstanceException(address + ": step " + step + ": " + safe(e), e);
      }
    }

    /** The socket timeout of what runs next: a wait needs a longer one than a quick statement. */
    private void bound(Duration bound) throws SQLException {
      if (!bound.equals(socketTimeout)) {
        connection.setNetworkTimeout(Runnable::run, Math.toIntExact(bound.toMillis()));
        socketTimeout = bound;
      }
    }

    @Override
    public void close() {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Closing a connection whose server went away: nothing is left to release.
      }
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

  /**
   * The cause without the driver's message (it may echo the statement): a connection that failed or
   * timed out says so; otherwise the server's error code and SQL state, with the meaning of the
   * codes a person can act on.
   */
  /** What the network said beneath a failed connect, as words: ": its name did not resolve". */
  static String networkCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnknownHostException) {
        return ": its name did not resolve";
      }
      if (t instanceof NoRouteToHostException) {
        return ": no route to its address";
      }
      if (t instanceof ConnectException) {
        return ": its address refused the connection";
      }
      if (t instanceof SocketTimeoutException) {
        return ": its address did not answer in time";
      }
    }
    return "";
  }

  static String safe(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (e instanceof SQLTimeoutException) {
      return "no answer within the timeout (SQL state " + state + ")";
    }
    if (state.startsWith("08")) {
      return "no connection to the server" + networkCause(e) + " (SQL state " + state + ")";
    }
    String code = "SQL error " + e.getErrorCode() + " (state " + state + ")";
    return switch (e.getErrorCode()) {
      case 1045 -> code + ": the operator's user was refused; check the <cluster>-operator Secret";
      case 1290, 1836 -> code + ": the server is read-only";
      default -> code;
    };
  }

  /** Where this client connects. */
  public Address address() {
    return address;
  }
}
