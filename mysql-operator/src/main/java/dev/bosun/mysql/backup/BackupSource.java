package dev.bosun.mysql.backup;

import dev.bosun.common.status.HumanText;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceClient;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.Observer;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.ContentChecking;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes a replica fit to be dumped: its data known good since its server last started, and level
 * with the primary as the backup starts, so the dump holds every write acknowledged before it.
 */
public final class BackupSource {

  /** A member that may be dumped, as the cluster's status names it. */
  public record Candidate(String name, Address address) {}

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;
  private final int catchUpSeconds;

  /**
   * @param timeout bounds connecting and each quick query
   * @param catchUp how long a replica may take to apply what the primary holds
   */
  public BackupSource(
      SqlDialect dialect, Credentials credentials, Duration timeout, Duration catchUp) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
    this.catchUpSeconds = (int) Math.max(1, catchUp.toSeconds());
  }

  /**
   * What a dump reads: the lone {@code primary} of a cluster without replicas (the only copy there
   * is), else the first fit replica ({@link #ready}).
   */
  public Candidate from(
      Candidate primary, List<Candidate> replicas, Map<String, Long> verifiedStarts)
      throws InstanceException {
    return replicas.isEmpty() ? primary : ready(replicas, primary.address(), verifiedStarts);
  }

  /**
   * The first replica whose server runs on since its data was last found the same as the primary's
   * ({@code verifiedStarts}, the cluster's content record), once it has applied the primary's
   * binlog position read now. A replica restarted since its last comparison may have come back
   * without rows its position claims (chaos seed 840758); one that lags misses writes the primary
   * acknowledged before the backup. Throws, saying why for each, when none is fit.
   */
  public Candidate ready(
      List<Candidate> replicas, Address primary, Map<String, Long> verifiedStarts)
      throws InstanceException {
    if (replicas.isEmpty()) {
      throw new InstanceException("no replica follows the primary");
    }
    String position = primaryPosition(primary);
    List<String> unfit = new ArrayList<>();
    for (Candidate c : replicas) {
      String why = unfit(c, position, verifiedStarts.get(c.name()));
      if (why == null) {
        return c;
      }
      unfit.add(why);
    }
    throw new InstanceException(
        HumanText.format("no replica is fit to back up from: {}", String.join("; ", unfit)));
  }

  private String primaryPosition(Address primary) throws InstanceException {
    List<Map<String, String>> rows = client(primary).query(dialect.stateQuery(), timeout);
    if (rows.isEmpty()) {
      throw new InstanceException("the primary " + primary + " did not tell its position");
    }
    String pos = rows.get(0).get("binlog_pos");
    return pos == null ? "" : pos;
  }

  /** Why {@code c} is not fit now, or null when it is (then it has applied {@code position}). */
  private String unfit(Candidate c, String position, Long verifiedStart) {
    try (InstanceClient.Session s = client(c.address()).open()) {
      List<Map<String, String>> state = s.query(dialect.stateQuery());
      String started = state.isEmpty() ? null : state.get(0).get("server_started");
      if (started == null
          || !ContentChecking.sameStart(verifiedStart, Observer.epochSeconds(started))) {
        return HumanText.format(
            "{}'s data has not been compared with the primary's since its server started",
            c.name());
      }
      if (dialect.gtids().isEmpty(position)) {
        return null;
      }
      List<Map<String, String>> waited =
          s.query(
              dialect.waitForApplied(position, catchUpSeconds),
              timeout.plusSeconds(catchUpSeconds));
      String v = waited.isEmpty() ? null : waited.get(0).values().iterator().next();
      if (v == null || !dialect.waitSucceeded(Long.parseLong(v))) {
        return HumanText.format(
            "{} had not applied the primary's position {} after {} s",
            c.name(),
            position,
            catchUpSeconds);
      }
      return null;
    } catch (InstanceException | NumberFormatException e) {
      return HumanText.format("{} did not answer: {}", c.name(), e.getMessage());
    }
  }

  private InstanceClient client(Address a) {
    return new InstanceClient(a, credentials, timeout, dialect.jdbcOptions());
  }
}
