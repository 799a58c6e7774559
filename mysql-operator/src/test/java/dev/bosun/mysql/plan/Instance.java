package dev.bosun.mysql.plan;

/**
 * Builds an {@link InstanceState} for a test from a healthy primary or replica, changed only where
 * the test's scenario differs (a stopped thread, an error, a position received but not applied).
 */
public final class Instance {

  private final String name;
  private final int ordinal;
  private String executed;
  private String replicated;
  private boolean readOnly;
  private boolean replicaConfigured;
  private String sourceHost;
  private int sourcePort;
  private boolean ioRunning;
  private boolean ioConnecting;
  private boolean sqlRunning;
  private Long lagSeconds;
  private int lastIoErrno;
  private int lastSqlErrno;
  private String received;
  private boolean semiSyncSourceOn;
  private String history = "";
  private long startedAt;

  private Instance(String name, int ordinal) {
    this.name = name;
    this.ordinal = ordinal;
  }

  /** A writable primary that executed up to {@code gtid}, its semi-sync source side on. */
  public static Instance primary(String name, int ordinal, String gtid) {
    Instance i = new Instance(name, ordinal);
    i.executed = gtid;
    i.replicated = "";
    i.received = "";
    i.semiSyncSourceOn = true;
    return i;
  }

  /**
   * A read-only replica of {@code host:port} that received, applied and executed up to {@code
   * gtid}, both threads running, no lag.
   */
  public static Instance replica(String name, int ordinal, String gtid, String host, int port) {
    Instance i = new Instance(name, ordinal);
    i.executed = gtid;
    i.replicated = gtid;
    i.received = gtid;
    i.readOnly = true;
    i.replicaConfigured = true;
    i.sourceHost = host;
    i.sourcePort = port;
    i.ioRunning = true;
    i.sqlRunning = true;
    i.lagSeconds = 0L;
    return i;
  }

  /** What the applier recorded as applied from the source. */
  public Instance replicated(String gtid) {
    this.replicated = gtid;
    return this;
  }

  /** What the receiver got from the source. */
  public Instance received(String gtid) {
    this.received = gtid;
    return this;
  }

  /** Its binlog history (MariaDB's gtid_binlog_state); "" unless a test compares histories. */
  public Instance history(String state) {
    this.history = state;
    return this;
  }

  /** When its server started (epoch seconds); 0 (unknown) unless a test restarts servers. */
  public Instance startedAt(long epochSeconds) {
    this.startedAt = epochSeconds;
    return this;
  }

  public Instance readOnly(boolean readOnly) {
    this.readOnly = readOnly;
    return this;
  }

  public Instance semiSyncSourceOn(boolean on) {
    this.semiSyncSourceOn = on;
    return this;
  }

  /** Its receiver started and trying to connect, not connected. */
  public Instance ioConnecting(boolean connecting) {
    this.ioConnecting = connecting;
    return this;
  }

  public Instance ioRunning(boolean running) {
    this.ioRunning = running;
    return this;
  }

  public Instance sqlRunning(boolean running) {
    this.sqlRunning = running;
    return this;
  }

  /** Seconds behind the source; null when the server does not know (a thread stopped). */
  public Instance lagSeconds(Long lag) {
    this.lagSeconds = lag;
    return this;
  }

  public Instance lastIoErrno(int errno) {
    this.lastIoErrno = errno;
    return this;
  }

  public Instance lastSqlErrno(int errno) {
    this.lastSqlErrno = errno;
    return this;
  }

  public InstanceState build() {
    return new InstanceState(
        name,
        ordinal,
        true,
        executed,
        executed,
        replicated,
        readOnly,
        replicaConfigured,
        sourceHost,
        sourcePort,
        ioRunning,
        ioConnecting,
        sqlRunning,
        lagSeconds,
        lastIoErrno,
        lastSqlErrno,
        received,
        semiSyncSourceOn,
        history,
        startedAt);
  }
}
