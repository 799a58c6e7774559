package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import java.time.Duration;
import java.util.List;

/**
 * Keeps each cluster's metrics user on its primary, from where it replicates to every member: also
 * on clusters whose data was initialised before spec.metrics was turned on. Done once per primary
 * and password in this process, so a steady cluster costs no statement; an operator restart repeats
 * it once (the statements are idempotent).
 */
public final class MetricsUsers {

  private final Duration timeout;
  private final OncePerPrimary once = new OncePerPrimary();

  /** {@code timeout} bounds connecting and each statement. */
  public MetricsUsers(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * Creates the metrics user on {@code primary} or sets its password, unless already done for this
   * primary and password of cluster {@code uid}.
   */
  public void ensure(
      String uid, SqlDialect dialect, Credentials credentials, Address primary, String password)
      throws InstanceException {
    List<String> statements = dialect.metricsUser(password);
    if (!once.needed(uid, primary, statements)) {
      return;
    }
    new InstanceClient(primary, credentials, timeout, dialect.jdbcOptions())
        .execute("metrics-user", statements);
    once.ran(uid, primary, statements);
  }

  /** Forgets a cluster (deleted, or spec.metrics turned off). */
  public void forget(String uid) {
    once.forget(uid);
  }
}
