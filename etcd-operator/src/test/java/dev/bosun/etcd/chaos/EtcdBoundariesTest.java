package dev.bosun.etcd.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import org.junit.jupiter.api.Test;

class EtcdBoundariesTest {

  @Test
  void eachCallHasABeforeAndAnAfterBoundaryApartFromTheApiServersOnes() {
    assertThat(EtcdBoundaries.ALL)
        .hasSize(10)
        .contains("before adding a member", "after defragmenting a member");
    assertThat(EtcdBoundaries.isEtcd("after removing a member")).isTrue();
    assertThat(EtcdBoundaries.isEtcd("before creating a member Pod")).isFalse();
    assertThat(ApiBoundaries.ALL).doesNotContainAnyElementsOf(EtcdBoundaries.ALL);
  }

  @Test
  void theBoundariesNameTheMethodsJetcdCalls() {
    assertThat(EtcdBoundaries.call("before adding a member"))
        .accepts(ClusterGrpc.getMemberAddMethod().getFullMethodName())
        .rejects(ClusterGrpc.getMemberRemoveMethod().getFullMethodName());
    assertThat(EtcdBoundaries.call("after promoting a learner"))
        .accepts(ClusterGrpc.getMemberPromoteMethod().getFullMethodName());
    assertThat(EtcdBoundaries.call("after removing a member"))
        .accepts(ClusterGrpc.getMemberRemoveMethod().getFullMethodName());
    assertThat(EtcdBoundaries.call("before moving the leader"))
        .accepts(MaintenanceGrpc.getMoveLeaderMethod().getFullMethodName());
    assertThat(EtcdBoundaries.call("before defragmenting a member"))
        .accepts(MaintenanceGrpc.getDefragmentMethod().getFullMethodName())
        .rejects(MaintenanceGrpc.getStatusMethod().getFullMethodName());
    assertThatThrownBy(() -> EtcdBoundaries.call("before nothing"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
