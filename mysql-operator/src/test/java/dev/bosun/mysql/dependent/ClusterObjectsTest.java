package dev.bosun.mysql.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Resources;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.RootPasswordSecret;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.resources.Requests;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The desired Kubernetes objects of a cluster. */
public class ClusterObjectsTest {

  public static MySQLCluster cluster(MySQLClusterSpec spec) {
    MySQLCluster c = new MySQLCluster();
    c.setMetadata(
        new ObjectMetaBuilder().withName("db").withNamespace("shop").withUid("u-1").build());
    c.setSpec(spec);
    return c;
  }

  @Test
  void theStatefulSetStartsPodsInParallelUpdatesOnDeleteAndReadsPasswordsFromSecrets() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(3);
    Requests req = new Requests();
    req.setCpu("500m");
    Resources res = new Resources();
    res.setRequests(req);
    spec.setResources(res);
    MySQLCluster c = cluster(spec);
    var sts = ClusterObjects.statefulSet(c, ClusterModel.of(c), 3);

    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
    assertThat(sts.getSpec().getServiceName()).isEqualTo("db-headless");
    var container = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("docker.io/library/mysql:8.4");
    assertThat(container.getResources().getRequests().get("cpu").toString()).isEqualTo("500m");
    assertThat(container.getEnv())
        .filteredOn(e -> e.getName().endsWith("PASSWORD"))
        .allSatisfy(e -> assertThat(e.getValue()).isNull())
        .extracting(EnvVar::getName)
        .contains("MYSQL_ROOT_PASSWORD", "BOSUN_REPLICATION_PASSWORD", "BOSUN_OPERATOR_PASSWORD");
    assertThat(
            sts.getSpec().getVolumeClaimTemplates().get(0).getSpec().getResources().getRequests())
        .containsKey("storage");
    assertThat(sts.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getController()).isTrue());
  }

  @Test
  void aNamedRootSecretIsUsedAsIs() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    RootPasswordSecret root = new RootPasswordSecret();
    root.setName("mine");
    root.setKey("pw");
    spec.setRootPasswordSecret(root);
    MySQLCluster c = cluster(spec);
    assertThat(ClusterNames.rootSecret(c)).isEqualTo("mine");
    assertThat(ClusterNames.rootSecretKey(c)).isEqualTo("pw");
    assertThat(ClusterNames.rootSecret(cluster(new MySQLClusterSpec()))).isEqualTo("db-root");
  }

  @Test
  void theRoleServicesSelectPodsByRole() {
    MySQLCluster c = cluster(new MySQLClusterSpec());
    ClusterModel m = ClusterModel.of(c);
    assertThat(ClusterObjects.roleService(c, m, MySQLOperator.PRIMARY).getSpec().getSelector())
        .containsEntry(MySQLOperator.ROLE, "primary");
    assertThat(ClusterObjects.roleService(c, m, MySQLOperator.REPLICA).getMetadata().getName())
        .isEqualTo("db-replicas");
    var headless = ClusterObjects.headless(c, m);
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(headless.getSpec().getPorts().get(0).getProtocol()).isEqualTo("TCP");
  }

  @Test
  void theConfigMapHoldsTheOperatorsSettingsThenTheUsersAndNoPassword() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setFlavour(MySQLClusterSpec.Flavour.MARIADB);
    spec.setVersion("10.11");
    spec.setServerConfig(Map.of("max_connections", "500"));
    MySQLCluster c = cluster(spec);
    var cm = ClusterObjects.config(c, ClusterModel.of(c));
    String cnf = cm.getData().get("bosun.cnf");
    assertThat(cnf).contains("read-only=ON", "gtid-strict-mode=ON", "max_connections=500");
    assertThat(cnf.indexOf("read-only=ON")).isLessThan(cnf.indexOf("max_connections"));
    assertThat(cnf).doesNotContain("server-id=");
    assertThat(cm.getData().get("start.sh")).contains("mariadbd", "server-id");
    assertThat(Serialization.asJson(cm)).doesNotContainIgnoringCase("password=");
  }

  @Test
  void theDisruptionBudgetAllowsOneMemberDown() {
    var pdb = ClusterObjects.disruptionBudget(cluster(new MySQLClusterSpec()));
    assertThat(pdb.maxUnavailable()).isEqualTo(1);
    assertThat(pdb.minAvailable()).isNull();
  }
}
