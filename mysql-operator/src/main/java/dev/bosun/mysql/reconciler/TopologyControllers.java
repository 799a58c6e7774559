package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One replication loop per cluster incarnation (its UID), kept between rounds (it remembers when
 * the primary last answered) and made again when the cluster's credentials change.
 */
final class TopologyControllers {

  private record Entry(Credentials credentials, TopologyController controller) {}

  private final Duration sqlTimeout;
  private final Clock clock;
  private final Map<String, Entry> byCluster = new ConcurrentHashMap<>();

  TopologyControllers(Duration sqlTimeout, Clock clock) {
    this.sqlTimeout = sqlTimeout;
    this.clock = clock;
  }

  TopologyController of(MySQLCluster c, ClusterModel m, Credentials creds) {
    String key = c.getMetadata().getUid();
    Entry existing = byCluster.get(key);
    if (existing != null && existing.credentials().equals(creds)) {
      return existing.controller();
    }
    Entry fresh =
        new Entry(
            creds,
            new TopologyController(SqlDialect.of(m.flavour()), creds, sqlTimeout, clock, 30));
    byCluster.put(key, fresh);
    return fresh.controller();
  }

  /** Forgets a deleted cluster's loop. */
  void forget(String uid) {
    byCluster.remove(uid);
  }
}
