package dev.bosun.etcd.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ApiBoundariesTest {

  private static final String NS = "/api/v1/namespaces/etcdchaos-1";

  @Test
  void eachRequestHasABeforeAndAnAfterBoundary() {
    assertThat(ApiBoundaries.ALL)
        .hasSize(12)
        .contains("before creating a member Pod", "after writing the status");
    assertThat(ApiBoundaries.before("before deleting a volume")).isTrue();
    assertThat(ApiBoundaries.before("after deleting a volume")).isFalse();
  }

  @Test
  void theBoundariesMatchTheOperatorsRequestLines() {
    assertThat(ApiBoundaries.request("before creating a member Pod"))
        .accepts("POST " + NS + "/pods")
        .rejects("DELETE " + NS + "/pods/ch-1", "POST " + NS + "/persistentvolumeclaims");
    assertThat(ApiBoundaries.request("after deleting a member Pod"))
        .accepts("DELETE " + NS + "/pods/ch-1")
        .rejects("POST " + NS + "/pods");
    assertThat(ApiBoundaries.request("before creating a volume"))
        .accepts("POST " + NS + "/persistentvolumeclaims")
        .rejects("PATCH " + NS + "/persistentvolumeclaims/data-ch-0");
    assertThat(ApiBoundaries.request("before stamping or retaining a volume"))
        .accepts("PATCH " + NS + "/persistentvolumeclaims/data-ch-0")
        .rejects("DELETE " + NS + "/persistentvolumeclaims/data-ch-0");
    assertThat(ApiBoundaries.request("after deleting a volume"))
        .accepts("DELETE " + NS + "/persistentvolumeclaims/data-ch-0");
    assertThat(ApiBoundaries.request("before writing the status"))
        .accepts(
            "PATCH /apis/etcd.bosun.dev/v1alpha1/namespaces/etcdchaos-1/etcdclusters/ch/status",
            "PUT /apis/etcd.bosun.dev/v1alpha1/namespaces/etcdchaos-1/etcdclusters/ch/status")
        .rejects("PATCH /apis/etcd.bosun.dev/v1alpha1/namespaces/etcdchaos-1/etcdclusters/ch");
  }

  @Test
  void anUnknownBoundaryIsRefused() {
    assertThatThrownBy(() -> ApiBoundaries.request("before lunch"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("before lunch");
  }
}
