package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterObjectsTest;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The replication loop the reconciler keeps per cluster between rounds, and that it goes. */
class ClusterMemoryTest {

  private static final Credentials CREDS = new Credentials("op", "pw", "repl", "rpw");

  private static MySQLCluster cluster(String uid) {
    MySQLCluster c = ClusterObjectsTest.cluster(new MySQLClusterSpec());
    c.getMetadata().setUid(uid);
    return c;
  }

  @Test
  void aClustersLoopIsKeptBetweenRoundsAndGoesWithTheCluster() {
    TopologyControllers controllers =
        new TopologyControllers(Duration.ofSeconds(1), Clock.systemUTC());
    MySQLCluster c = cluster("u-1");
    ClusterModel m = ClusterModel.of(c);
    TopologyController first = controllers.of(c, m, CREDS);
    assertThat(controllers.of(c, m, CREDS)).as("kept between rounds").isSameAs(first);
    assertThat(controllers.of(c, m, new Credentials("op", "new", "repl", "rpw")))
        .as("made again when the credentials change")
        .isNotSameAs(first);
    TopologyController current = controllers.of(c, m, CREDS);
    controllers.forget("u-1");
    assertThat(controllers.of(c, m, CREDS)).as("forgotten with the cluster").isNotSameAs(current);
  }
}
