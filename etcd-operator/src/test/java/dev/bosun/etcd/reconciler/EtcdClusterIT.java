package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.testing.RunningOperator;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator on the real control plane, its member Pods run as real etcd processes by the {@link
 * ProcessKubelet}: what the operator does through Kubernetes and etcd is what happens.
 */
@ExtendWith(ControlPlaneExtension.class)
class EtcdClusterIT {

  static final String VERSION = "3.4.23";
  static RunningOperator operator;
  String ns;
  ProcessKubelet kubelet;

  @BeforeAll
  static void startOperator() {
    operator = new RunningOperator().start();
  }

  @AfterAll
  static void stopOperator() {
    operator.close();
  }

  @BeforeEach
  void namespace() throws Exception {
    ns =
        Crds.namespace(
            operator.client,
            "etcd-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    Path root = Files.createTempDirectory("process-kubelet-" + ns);
    kubelet = new ProcessKubelet(operator.client, ns, root).start();
  }

  @AfterEach
  void cleanup() {
    kubelet.close();
    operator.client.namespaces().withName(ns).delete();
  }

  @Test
  void aNewClusterBootstrapsOneMemberAndGrowsToItsSize() {
    EtcdClusters.create(operator.client, ns, "alpha", 3, VERSION);
    EtcdCluster ready =
        EtcdClusters.await(
            operator.client,
            ns,
            "alpha",
            Duration.ofSeconds(90),
            "Ready with 3",
            EtcdClusters.readyWith(3));
    assertThat(ready.getStatus().getLeader()).startsWith("alpha-");
    assertThat(ready.getStatus().getVersion()).isEqualTo(VERSION);
  }
}
