package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class EtcdClusterAdmissionTest {

  private static EtcdCluster cluster(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: etcd.bosun.dev/v1alpha1\nkind: EtcdCluster\nmetadata: {name: main}\n" + yaml,
        EtcdCluster.class);
  }

  @Test
  void aChangeIsJudgedAgainstWhatTheMembersRun() {
    EtcdCluster old =
        cluster(
            "spec: {version: 3.5.17}\nstatus: {version: 3.4.37, members: [{name: main-0, version:"
                + " 3.5.17}, {name: main-1, version: 3.4.37}]}");
    assertThat(EtcdClusterAdmission.runningVersions(old)).containsExactly("3.5.17", "3.4.37");
    // Every member's version counts, not only the lowest the status reports.
    assertThat(new EtcdClusterAdmission().problems(cluster("spec: {version: 3.4.34}"), old))
        .anySatisfy(p -> assertThat(p).contains("version 3.4.34 is older than 3.5.17"))
        .anySatisfy(p -> assertThat(p).contains("version 3.4.34 is older than 3.4.37"));
  }

  @Test
  void withoutMemberVersionsTheStatusVersionCountsAndANewClusterRunsNothing() {
    assertThat(
            EtcdClusterAdmission.runningVersions(
                cluster("spec: {version: 3.5.17}\nstatus: {version: 3.5.17}")))
        .containsExactly("3.5.17");
    assertThat(EtcdClusterAdmission.runningVersions(cluster("spec: {version: 3.5.17}"))).isEmpty();
    assertThat(EtcdClusterAdmission.runningVersions(null)).isEmpty();
  }

  @Test
  void theCrdsMetricsPortRuleHoldsWithMetricsOff() {
    assertThat(
            new EtcdClusterAdmission()
                .problems(cluster("spec: {version: 3.5.17, metrics: {port: 2380}}"), null))
        .singleElement()
        .asString()
        .contains("metrics.port 2380 is etcd's client or peer port");
    assertThat(
            new EtcdClusterAdmission()
                .problems(cluster("spec: {version: 3.5.17, metrics: {port: 9000}}"), null))
        .isEmpty();
  }
}
