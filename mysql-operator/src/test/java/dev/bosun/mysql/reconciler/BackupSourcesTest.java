package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.reconciler.MySQLBackupReconciler.Sources;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.ContentCheck;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which members a MySQLBackup may read, from the cluster's status alone. */
class BackupSourcesTest {

  @Test
  void healthyReplicasWhoseDataWasComparedInStatusOrder() {
    Sources s =
        MySQLBackupReconciler.sources(
            cluster(
                3,
                Map.of("db-1", 100L, "db-2", 90L),
                primary("db-0", true),
                replica("db-1", true, false),
                replica("db-2", true, false)));
    assertThat(s.problem()).isNull();
    assertThat(s.primary()).isEqualTo("db-0");
    assertThat(s.replicas()).containsExactly("db-1", "db-2");
    assertThat(s.verifiedStarts()).containsEntry("db-1", 100L);
    assertThat(s.names()).containsExactly("db-1", "db-2");
  }

  @Test
  void aReplicaNeverComparedErrantOrUnhealthyIsLeftOut() {
    Sources s =
        MySQLBackupReconciler.sources(
            cluster(
                4,
                Map.of("db-2", 90L, "db-3", 80L),
                primary("db-0", true),
                replica("db-1", true, false),
                replica("db-2", false, true),
                replica("db-3", true, false)));
    assertThat(s.replicas()).containsExactly("db-3");
  }

  @Test
  void replicasNotComparedYetAreWaitedFor() {
    Sources s =
        MySQLBackupReconciler.sources(
            cluster(3, null, primary("db-0", true), replica("db-1", true, false)));
    assertThat(s.problem())
        .isEqualTo(
            "has no replica whose data was compared with the primary's yet (db-1 waiting for it);"
                + " the backup starts once one was");
  }

  @Test
  void withoutAHealthyPrimaryNoReplicaIsReadItCouldNotBeLevelWithIt() {
    Sources s =
        MySQLBackupReconciler.sources(
            cluster(3, Map.of("db-1", 100L), primary("db-0", false), replica("db-1", true, false)));
    assertThat(s.problem())
        .isEqualTo("has no healthy primary for a replica's dump to be level with");
  }

  @Test
  void aLonePrimaryIsReadButNotAPrimaryWhoseReplicasAreAllDown() {
    Sources alone = MySQLBackupReconciler.sources(cluster(1, null, primary("db-0", true)));
    assertThat(alone.problem()).isNull();
    assertThat(alone.names()).containsExactly("db-0");
    Sources down =
        MySQLBackupReconciler.sources(
            cluster(3, Map.of("db-1", 1L), primary("db-0", true), replica("db-1", false, false)));
    assertThat(down.problem()).isEqualTo("has no healthy replica to back up from");
  }

  @Test
  void aClusterWithoutAPrimaryYetHasNoSource() {
    MySQLCluster c = new MySQLCluster();
    c.setSpec(new MySQLClusterSpec());
    assertThat(MySQLBackupReconciler.sources(c).problem()).isEqualTo("has no primary yet");
  }

  private static MySQLCluster cluster(
      int instances, Map<String, Long> verified, Instances primary, Instances... replicas) {
    MySQLCluster c = new MySQLCluster();
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(instances);
    c.setSpec(spec);
    MySQLClusterStatus s = new MySQLClusterStatus();
    s.setPrimary(primary.getName());
    List<Instances> all = new ArrayList<>();
    all.add(primary);
    all.addAll(List.of(replicas));
    s.setInstances(all);
    if (verified != null) {
      ContentCheck cc = new ContentCheck();
      cc.setVerifiedStarts(verified);
      s.setContentCheck(cc);
    }
    c.setStatus(s);
    return c;
  }

  private static Instances primary(String name, boolean healthy) {
    Instances i = new Instances();
    i.setName(name);
    i.setRole(healthy ? "primary" : "unknown");
    i.setHealthy(healthy);
    return i;
  }

  private static Instances replica(String name, boolean healthy, boolean errant) {
    Instances i = new Instances();
    i.setName(name);
    i.setRole(healthy ? "replica" : "fenced");
    i.setHealthy(healthy);
    i.setErrant(errant ? Boolean.TRUE : null);
    return i;
  }
}
