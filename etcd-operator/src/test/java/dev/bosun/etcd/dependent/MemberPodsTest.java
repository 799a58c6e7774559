package dev.bosun.etcd.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.membership.ServiceAddressing;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Storage;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Tls;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberPodsTest {

  static EtcdCluster cluster() {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(
        new ObjectMetaBuilder().withName("demo").withNamespace("team").withUid("uid-1").build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setVersion("3.5.17");
    c.setSpec(spec);
    return c;
  }

  static final ClusterRef REF = new ClusterRef("team", "demo", false, false);

  Pod pod(EtcdCluster c, MemberPods.State state, boolean voter) {
    Map<String, URI> initial = new LinkedHashMap<>();
    initial.put("demo-0", URI.create("http://demo-0.demo-peer.team.svc:2380"));
    initial.put("demo-1", URI.create("http://demo-1.demo-peer.team.svc:2380"));
    return MemberPods.desired(c, REF, new ServiceAddressing(), "demo-1", initial, state, voter);
  }

  @Test
  void theMemberIsAddressedByItsPeerServiceName() {
    Pod pod = pod(cluster(), MemberPods.State.EXISTING, false);
    assertThat(pod.getSpec().getHostname()).isEqualTo("demo-1");
    assertThat(pod.getSpec().getSubdomain()).isEqualTo("demo-peer");
    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains(
            "--name=demo-1",
            "--data-dir=/var/lib/etcd/data",
            "--listen-peer-urls=http://0.0.0.0:2380",
            "--listen-client-urls=http://0.0.0.0:2379",
            "--advertise-client-urls=http://demo-1.demo-peer.team.svc:2379",
            "--initial-advertise-peer-urls=http://demo-1.demo-peer.team.svc:2380",
            "--initial-cluster=demo-0=http://demo-0.demo-peer.team.svc:2380,demo-1=http://demo-1.demo-peer.team.svc:2380",
            "--initial-cluster-state=existing",
            "--initial-cluster-token=uid-1");
    assertThat(pod.getSpec().getContainers().get(0).getImage())
        .isEqualTo("gcr.io/etcd-development/etcd:v3.5.17");
  }

  @Test
  void labelsSayWhichMemberAndWhetherItVotes() {
    Pod learner = pod(cluster(), MemberPods.State.EXISTING, false);
    assertThat(learner.getMetadata().getLabels())
        .containsEntry(EtcdOperator.MEMBER_LABEL, "demo-1")
        .containsEntry(EtcdOperator.VOTER_LABEL, "false")
        .containsEntry("app.kubernetes.io/managed-by", EtcdOperator.NAME);
    assertThat(learner.getMetadata().getAnnotations())
        .containsEntry(EtcdOperator.VERSION_ANNOTATION, "3.5.17");
    assertThat(pod(cluster(), MemberPods.State.NEW, true).getMetadata().getLabels())
        .containsEntry(EtcdOperator.VOTER_LABEL, "true");
  }

  @Test
  void dataLivesOnTheMembersClaim() {
    Pod pod = pod(cluster(), MemberPods.State.NEW, true);
    assertThat(pod.getSpec().getVolumes().get(0).getPersistentVolumeClaim().getClaimName())
        .isEqualTo("data-demo-1");
    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains("--initial-cluster-state=new");
  }

  @Test
  void tlsSecretsBecomeFlagsAndHttpsUrls() {
    EtcdCluster c = cluster();
    Tls tls = new Tls();
    tls.setServerSecretName("srv");
    tls.setPeerSecretName("peer");
    tls.setOperatorSecretName("op");
    c.getSpec().setTls(tls);
    ClusterRef ref = new ClusterRef("team", "demo", true, true);
    Pod pod =
        MemberPods.desired(
            c, ref, new ServiceAddressing(), "demo-0", Map.of(), MemberPods.State.NEW, true);
    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains(
            "--cert-file=/etc/etcd/tls/server/tls.crt",
            "--client-cert-auth=true",
            "--peer-client-cert-auth=true",
            "--advertise-client-urls=https://demo-0.demo-peer.team.svc:2379");
    assertThat(pod.getSpec().getVolumes())
        .extracting(v -> v.getName())
        .contains("server-tls", "peer-tls");
  }

  @Test
  void antiAffinityIsPreferredByDefault() {
    Pod pod = pod(cluster(), MemberPods.State.NEW, true);
    assertThat(
            pod.getSpec()
                .getAffinity()
                .getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution())
        .hasSize(1);
  }

  @Test
  void volumesAreOwnedOnlyWhenTheyGoWithTheCluster() {
    EtcdCluster c = cluster();
    c.setApiVersion("etcd.bosun.dev/v1alpha1");
    c.setKind("EtcdCluster");
    assertThat(MemberVolumes.desired(c, "demo-0").getMetadata().getOwnerReferences()).isEmpty();
    Storage s = new Storage();
    s.setWhenDeleted(Storage.WhenDeleted.DELETE);
    c.getSpec().setStorage(s);
    assertThat(MemberVolumes.desired(c, "demo-0").getMetadata().getOwnerReferences()).hasSize(1);
    assertThat(MemberVolumes.deleteWhenScaledDown(c)).isTrue();
  }
}
