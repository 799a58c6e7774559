package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Keeps a fence able to stop every account. On MariaDB, read_only does not stop an account that
 * holds READ_ONLY ADMIN, and GRANT ALL PRIVILEGES (root's, and any administrator's) gives it: such
 * an account keeps writing to a fenced old primary, and its writes become errant transactions. The
 * privilege is taken from every account but the operator's, on the primary (the REVOKE replicates);
 * an account that lacks it cannot grant it again. Done once per primary in this process, so a
 * steady cluster costs no statement; MySQL's super_read_only stops every account already.
 */
public final class FenceGrants {

  private final Duration timeout;
  private final OncePerPrimary once = new OncePerPrimary();

  /** {@code timeout} bounds connecting and each statement. */
  public FenceGrants(Duration timeout) {
    this.timeout = timeout;
  }

  /** Takes the fence exemption from every account on {@code primary}, once per primary. */
  public void ensure(String uid, SqlDialect dialect, Credentials credentials, Address primary)
      throws InstanceException {
    String query = dialect.fenceExemptAccountsQuery();
    if (query == null || !once.needed(uid, primary, List.of(query))) {
      return;
    }
    InstanceClient client =
        new InstanceClient(primary, credentials, timeout, dialect.jdbcOptions());
    List<String> revokes = new ArrayList<>();
    for (Map<String, String> account : client.query(query, timeout)) {
      var values = account.values().iterator();
      revokes.addAll(dialect.withoutFenceExemption(values.next(), values.next()));
    }
    client.execute("fence-grants", revokes);
    once.ran(uid, primary, List.of(query));
  }

  /** Forgets a cluster. */
  public void forget(String uid) {
    once.forget(uid);
  }
}
