package dev.bosun.etcd.objects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.LoopbackAddressing;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.restore.FetchSnapshot;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Metrics;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Storage;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Tls;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.net.URI;
import java.time.Instant;
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
  void withoutMetricsEnabledOnlyTheClientAndPeerPortsAreServed() {
    Pod pod = pod(cluster(), MemberPods.State.NEW, true);
    Container etcd = pod.getSpec().getContainers().get(0);

    assertThat(etcd.getPorts())
        .extracting(ContainerPort::getName)
        .containsExactly("client", "peer");
    assertThat(etcd.getArgs()).noneMatch(a -> a.startsWith("--listen-metrics-urls"));
    assertThat(pod.getMetadata().getAnnotations()).doesNotContainKey("prometheus.io/scrape");
    assertThat(ClusterServices.peer(cluster()).getSpec().getPorts())
        .extracting(ServicePort::getName)
        .containsExactly("client", "peer");
  }

  @Test
  void enabledMetricsListenOnTheirOwnPortNamedMetricsAndAnnounceIt() {
    EtcdCluster c = cluster();
    c.getSpec().setMetrics(new Metrics());
    c.getSpec().getMetrics().setEnabled(true);
    c.getSpec().getMetrics().setPort(9379);
    c.getSpec().getMetrics().setLevel(Metrics.Level.EXTENSIVE);

    Pod pod = pod(c, MemberPods.State.NEW, true);
    Container etcd = pod.getSpec().getContainers().get(0);

    assertThat(etcd.getArgs())
        .contains("--listen-metrics-urls=http://0.0.0.0:9379", "--metrics=extensive");
    assertThat(etcd.getPorts())
        .filteredOn(p -> p.getName().equals("metrics"))
        .singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9379));
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", "9379")
        .containsEntry("prometheus.io/path", "/metrics");
    assertThat(ClusterServices.peer(c).getSpec().getPorts())
        .filteredOn(p -> p.getName().equals("metrics"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(9379);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("metrics");
            });
  }

  @Test
  void metricsDefaultToBasicOnPort2381AtTheMembersOwnAddressInTests() {
    EtcdCluster c = cluster();
    c.getSpec().setMetrics(new Metrics());
    c.getSpec().getMetrics().setEnabled(true);

    Pod pod =
        MemberPods.desired(
            c,
            REF,
            new LoopbackAddressing(7),
            "demo-1",
            Map.of("demo-1", URI.create("http://127.0.7.2:2380")),
            MemberPods.State.NEW,
            true);

    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains("--listen-metrics-urls=http://127.0.7.2:2381", "--metrics=basic");
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
    // /health demands a client certificate now: the image's etcdctl asks with the mounted one.
    var probe = pod.getSpec().getContainers().get(0).getReadinessProbe();
    assertThat(probe.getHttpGet()).isNull();
    assertThat(probe.getExec().getCommand())
        .containsExactly(
            "etcdctl",
            "--endpoints=https://demo-0.demo-peer.team.svc:2379",
            "--cacert=/etc/etcd/tls/server/ca.crt",
            "--cert=/etc/etcd/tls/server/tls.crt",
            "--key=/etc/etcd/tls/server/tls.key",
            "--command-timeout=3s",
            "get",
            "--consistency=l",
            "--keys-only",
            "health");
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/etcd/tls/server"));
    assertThat(probe.getTimeoutSeconds()).isGreaterThan(3);
  }

  @Test
  void withClientTlsTheMetricsListenerStaysPlainHttpSoPrometheusNeedsNoCertificate() {
    EtcdCluster c = cluster();
    Tls tls = new Tls();
    tls.setServerSecretName("srv");
    tls.setOperatorSecretName("op");
    c.getSpec().setTls(tls);
    c.getSpec().setMetrics(new Metrics());
    c.getSpec().getMetrics().setEnabled(true);
    Pod pod =
        MemberPods.desired(
            c,
            new ClusterRef("team", "demo", true, false),
            new ServiceAddressing(),
            "demo-0",
            Map.of(),
            MemberPods.State.NEW,
            true);

    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains(
            "--listen-client-urls=https://0.0.0.0:2379",
            "--listen-metrics-urls=http://0.0.0.0:2381");
  }

  @Test
  void readinessIsEtcdsOwnHealthNotAnOpenPortAndSurvivesNoSpace() {
    var probe =
        pod(cluster(), MemberPods.State.EXISTING, true)
            .getSpec()
            .getContainers()
            .get(0)
            .getReadinessProbe();
    assertThat(probe.getTcpSocket()).isNull();
    // NOSPACE refuses writes but not reads: the member stays behind the client Service.
    assertThat(probe.getHttpGet().getPath()).isEqualTo("/health?exclude=NOSPACE");
    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("client");
    assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTP");
  }

  @Test
  void theBudgetIsAQuorumOfTheVotersThatExist() {
    var five =
        new dev.bosun.etcd.client.EtcdView(
            true,
            1,
            java.util.stream.IntStream.range(0, 5)
                .mapToObj(
                    i ->
                        new dev.bosun.etcd.plan.ObservedMember(
                            "demo-" + i, i, false, true, i == 0, 1))
                .toList(),
            Map.of());
    // The spec says 1, five voters are still there: only two may be evicted.
    assertThat(MemberBudget.minAvailable(five, null, 1)).isEqualTo(3);
    var withLearner =
        new dev.bosun.etcd.client.EtcdView(
            true,
            1,
            java.util.List.of(
                new dev.bosun.etcd.plan.ObservedMember("demo-0", 0, false, true, true, 1),
                new dev.bosun.etcd.plan.ObservedMember("demo-1", 1, true, true, false, 1)),
            Map.of());
    assertThat(MemberBudget.minAvailable(withLearner, null, 3)).isEqualTo(1);
    var status = new dev.bosun.etcd.v1alpha1.EtcdClusterStatus();
    var m = new dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members();
    m.setName("demo-0");
    m.setRole(dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members.Role.UNKNOWN);
    status.setMembers(java.util.List.of(m, m, m));
    assertThat(MemberBudget.minAvailable(dev.bosun.etcd.client.EtcdView.unreachable(), status, 5))
        .isEqualTo(2);
    assertThat(MemberBudget.minAvailable(dev.bosun.etcd.client.EtcdView.unreachable(), null, 5))
        .isEqualTo(3);
    assertThat(MemberPods.voterSelector(cluster()))
        .containsEntry(EtcdOperator.VOTER_LABEL, "true")
        .containsAllEntriesOf(MemberPods.selector(cluster()));
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

  @Test
  void etcdCompactsItselfHourlyByDefaultOrAsTheSpecSays() {
    assertThat(
            pod(cluster(), MemberPods.State.EXISTING, true)
                .getSpec()
                .getContainers()
                .get(0)
                .getArgs())
        .contains("--auto-compaction-mode=periodic", "--auto-compaction-retention=1h")
        .noneMatch(a -> a.startsWith("--quota-backend-bytes"));
    EtcdCluster c = cluster();
    var maintenance = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance();
    var compaction = new dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction();
    compaction.setMode(
        dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction.Mode.REVISION);
    compaction.setRetention("10000");
    maintenance.setCompaction(compaction);
    c.getSpec().setMaintenance(maintenance);
    Storage storage = new Storage();
    storage.setQuotaBackendBytes(16L * 1024 * 1024);
    c.getSpec().setStorage(storage);
    assertThat(pod(c, MemberPods.State.EXISTING, true).getSpec().getContainers().get(0).getArgs())
        .contains(
            "--auto-compaction-mode=revision",
            "--auto-compaction-retention=10000",
            "--quota-backend-bytes=16777216");
  }

  Pod restored(RestoreSource source) {
    EtcdCluster c = cluster();
    Pod pod =
        MemberPods.desired(
            c,
            REF,
            new ServiceAddressing(),
            "demo-0",
            Map.of("demo-0", URI.create("http://demo-0.demo-peer.team.svc:2380")),
            MemberPods.State.NEW,
            true);
    return MemberPods.withRestore(
        pod, c, REF, new ServiceAddressing(), "demo-0", source, "bosun/etcd-operator:1.0");
  }

  static Map<String, EnvVar> fetchEnv(Pod pod) {
    Container fetch = pod.getSpec().getInitContainers().get(0);
    assertThat(fetch.getName()).isEqualTo("fetch-snapshot");
    Map<String, EnvVar> env = new LinkedHashMap<>();
    fetch.getEnv().forEach(e -> env.put(e.getName(), e));
    return env;
  }

  @Test
  void aMemberRestoredFromS3FetchesWithTheBackupsCredentials() {
    Pod pod =
        restored(
            new RestoreSource.S3(
                "nightly",
                "team/demo/nightly/1.db",
                "https://s3.example",
                "eu-west-1",
                "bucket",
                false,
                "s3-creds",
                Instant.EPOCH));

    Map<String, EnvVar> env = fetchEnv(pod);
    assertThat(env.get(FetchSnapshot.ENDPOINT).getValue()).isEqualTo("https://s3.example");
    assertThat(env.get(FetchSnapshot.REGION).getValue()).isEqualTo("eu-west-1");
    assertThat(env.get(FetchSnapshot.BUCKET).getValue()).isEqualTo("bucket");
    assertThat(env.get(FetchSnapshot.PATH_STYLE).getValue()).isEqualTo("false");
    assertThat(env.get(FetchSnapshot.KEY).getValue()).isEqualTo("team/demo/nightly/1.db");
    var id = env.get(FetchSnapshot.ACCESS_KEY_ID).getValueFrom().getSecretKeyRef();
    assertThat(id.getName()).isEqualTo("s3-creds");
    assertThat(id.getKey()).isEqualTo("accessKeyId");
    var secret = env.get(FetchSnapshot.SECRET_ACCESS_KEY).getValueFrom().getSecretKeyRef();
    assertThat(secret.getName()).isEqualTo("s3-creds");
    assertThat(secret.getKey()).isEqualTo("secretAccessKey");
    assertThat(env).doesNotContainKeys(FetchSnapshot.URL, FetchSnapshot.TOKEN_FILE);
    assertThat(pod.getSpec().getVolumes()).noneSatisfy(v -> assertThat(v.getSecret()).isNotNull());
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(EtcdOperator.RESTORED_FROM_ANNOTATION, "s3://bucket/team/demo/nightly/1.db");
    assertThat(pod.getSpec().getInitContainers())
        .extracting(Container::getName)
        .containsExactly("fetch-snapshot", "restore-snapshot", "install-snapshot");
    // The copy reads etcdctl's 0700 files and keeps their owner: root, with only those rights.
    var install = pod.getSpec().getInitContainers().get(2).getSecurityContext();
    assertThat(install.getRunAsUser()).isZero();
    assertThat(install.getAllowPrivilegeEscalation()).isFalse();
    assertThat(install.getReadOnlyRootFilesystem()).isTrue();
    assertThat(install.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(install.getCapabilities().getAdd())
        .containsExactlyInAnyOrder("CHOWN", "DAC_OVERRIDE", "FOWNER");
  }

  @Test
  void aMemberRestoredFromTheVolumeFetchesOverHttpsWithTheTokenAndCaAsFilesOfTheRestoreSecret() {
    Pod pod =
        restored(
            new RestoreSource.Volume(
                "nightly",
                "team/demo/nightly/1.db",
                URI.create("https://ops-restore.bosun-system.svc:8443"),
                "-----BEGIN CERTIFICATE-----\n",
                Instant.EPOCH));

    Map<String, EnvVar> env = fetchEnv(pod);
    assertThat(env.get(FetchSnapshot.URL).getValue())
        .isEqualTo("https://ops-restore.bosun-system.svc:8443/restore/v1/team/demo");
    assertThat(env.get(FetchSnapshot.TOKEN_FILE).getValue())
        .isEqualTo(MemberPods.RESTORE_SECRET_MOUNT + "/token");
    assertThat(env.get(FetchSnapshot.CA_FILE).getValue())
        .isEqualTo(MemberPods.RESTORE_SECRET_MOUNT + "/ca.crt");
    assertThat(env.values())
        .as("neither the token nor the CA is in the container's environment")
        .allSatisfy(e -> assertThat(e.getValueFrom()).isNull());
    var secret =
        pod.getSpec().getVolumes().stream()
            .filter(v -> v.getSecret() != null)
            .findFirst()
            .orElseThrow();
    assertThat(secret.getSecret().getSecretName()).isEqualTo("demo-restore");
    assertThat(env.get(FetchSnapshot.KEY).getValue()).isEqualTo("team/demo/nightly/1.db");
    assertThat(env)
        .doesNotContainKeys(
            FetchSnapshot.ENDPOINT, FetchSnapshot.ACCESS_KEY_ID, FetchSnapshot.SECRET_ACCESS_KEY);
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(EtcdOperator.RESTORED_FROM_ANNOTATION, "volume:team/demo/nightly/1.db");
    Container fetch = pod.getSpec().getInitContainers().get(0);
    assertThat(fetch.getImage()).isEqualTo("bosun/etcd-operator:1.0");
    assertThat(fetch.getCommand()).contains(FetchSnapshot.class.getName());
    assertThat(fetch.getArgs()).containsExactly("fetch", "/restore/snapshot.db");
    assertThat(fetch.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .as("the fetch container sees the staging emptyDir and the Secret, not the member's volume")
        .containsExactly(MemberPods.RESTORE_MOUNT, MemberPods.RESTORE_SECRET_MOUNT);
    assertThat(fetch.getVolumeMounts().get(1).getName()).isEqualTo(secret.getName());
    assertThat(fetch.getVolumeMounts().get(1).getReadOnly()).isTrue();
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
        .as("the member's own container never mounts the restore Secret")
        .noneSatisfy(m -> assertThat(m.getName()).isEqualTo(secret.getName()));
  }
}
