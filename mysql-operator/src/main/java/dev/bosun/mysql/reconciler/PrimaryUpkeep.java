package dev.bosun.mysql.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Accounts;
import dev.bosun.mysql.execute.FenceGrants;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.MetricsUsers;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is kept in place on a steady primary after each health round (it replicates to every
 * member): the exporters' user, the fence's grants and the application accounts of spec.users. A
 * failure of one is logged and retried next round; it holds nothing else back.
 */
final class PrimaryUpkeep {

  private static final Logger LOG = LoggerFactory.getLogger(PrimaryUpkeep.class);

  /**
   * The steady primary of one round.
   *
   * @param address where it answers, or null when the round has no steady primary
   * @param blocked whether the spec or a Secret blocks changes the spec asks for
   */
  record Primary(
      MySQLCluster cluster,
      ClusterModel model,
      String name,
      Address address,
      SqlDialect dialect,
      ClusterSecrets.Found secrets,
      boolean blocked) {}

  private final EventRecorder events;
  private final MetricsUsers metricsUsers;
  private final FenceGrants fenceGrants;
  private final Accounts accounts;

  PrimaryUpkeep(EventRecorder events, Duration sqlTimeout) {
    this.events = events;
    this.metricsUsers = new MetricsUsers(sqlTimeout);
    this.fenceGrants = new FenceGrants(sqlTimeout);
    this.accounts = new Accounts(sqlTimeout);
  }

  /** Keeps all three on {@code p}. */
  void keep(Primary p) {
    ensureMetricsUser(p);
    ensureFenceGrants(p);
    ensureAccounts(p);
  }

  /** With spec.metrics on, the exporters' user. */
  private void ensureMetricsUser(Primary p) {
    String uid = p.cluster().getMetadata().getUid();
    if (!p.model().exporter().enabled() || p.secrets().metricsPassword() == null) {
      metricsUsers.forget(uid);
      return;
    }
    if (p.address() == null) {
      return;
    }
    try {
      metricsUsers.ensure(
          uid, p.dialect(), p.secrets().credentials(), p.address(), p.secrets().metricsPassword());
    } catch (InstanceException e) {
      warn(p, "metrics user not ensured", e);
    }
  }

  /**
   * No account but the operator's can write through a fence (MariaDB; MySQL's fence stops every
   * account).
   */
  private void ensureFenceGrants(Primary p) {
    if (p.address() == null) {
      return;
    }
    try {
      fenceGrants.ensure(
          p.cluster().getMetadata().getUid(), p.dialect(), p.secrets().credentials(), p.address());
    } catch (InstanceException e) {
      warn(p, "fence grants not ensured", e);
    }
  }

  /** The application accounts of spec.users, while the spec and their Secrets are in order. */
  private void ensureAccounts(Primary p) {
    if (p.blocked() || p.address() == null) {
      return;
    }
    try {
      boolean ran =
          accounts.ensure(
              p.cluster().getMetadata().getUid(),
              p.dialect(),
              p.secrets().credentials(),
              p.address(),
              p.model().accounts(),
              p.secrets().accountPasswords());
      if (ran) {
        events.normal(
            p.cluster(),
            "AccountsApplied",
            "the application accounts "
                + String.join(", ", p.model().accounts().stream().map(a -> a.name()).toList())
                + " are in place on the primary "
                + p.name()
                + " with their databases and privileges");
      }
    } catch (InstanceException e) {
      warn(p, "accounts not applied", e);
    }
  }

  /** Forgets what is kept of a deleted cluster. */
  void forget(String uid) {
    metricsUsers.forget(uid);
    fenceGrants.forget(uid);
    accounts.forget(uid);
  }

  private static void warn(Primary p, String what, InstanceException e) {
    LOG.warn("{}/{}: {}: {}", p.model().namespace(), p.model().name(), what, e.getMessage());
  }
}
