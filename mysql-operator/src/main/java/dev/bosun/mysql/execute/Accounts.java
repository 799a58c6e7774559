package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.AccountModel;
import dev.bosun.mysql.plan.Address;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Keeps a cluster's application accounts (spec.users) on its primary, from where they replicate:
 * databases, accounts, passwords and database-level privileges. Run once per primary and content in
 * this process, so a steady cluster issues no statement; a new primary, a changed list or a rotated
 * password runs them again (they are idempotent).
 */
public final class Accounts {

  private final Duration timeout;
  private final OncePerPrimary once = new OncePerPrimary();

  /** {@code timeout} bounds connecting and each statement. */
  public Accounts(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * Applies {@code accounts} with their {@code passwords} (by account name) on {@code primary};
   * returns whether anything ran.
   */
  public boolean ensure(
      String uid,
      SqlDialect dialect,
      Credentials credentials,
      Address primary,
      List<AccountModel> accounts,
      Map<String, String> passwords)
      throws InstanceException {
    List<String> statements = new ArrayList<>();
    for (AccountModel a : accounts) {
      statements.addAll(
          dialect.applicationAccount(
              a.name(), passwords.get(a.name()), a.databases(), a.privileges()));
    }
    if (statements.isEmpty() || !once.needed(uid, primary, statements)) {
      return false;
    }
    new InstanceClient(primary, credentials, timeout, dialect.jdbcOptions())
        .execute("accounts", statements);
    once.ran(uid, primary, statements);
    return true;
  }

  /** Forgets a cluster. */
  public void forget(String uid) {
    once.forget(uid);
  }
}
