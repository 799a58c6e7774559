package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real node: Pods run as containers with pod IPs on the bridge, Services answer through
 * kube-proxy, cluster DNS names resolve (Services and StatefulSet Pods of headless Services),
 * claims get their own directory that outlives a Pod and goes with the claim, and logs and exec
 * work through the API server.
 */
@ExtendWith(RealNodeExtension.class)
class LocalNodeIT {

  private static final String NS = "node-it";
  private static KubernetesClient client;
  private static String image;

  @BeforeAll
  static void namespace() {
    RealNodeCluster cluster = RealNodeCluster.shared();
    client = cluster.adminClient();
    image = cluster.node().workloadsImage();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    await("the default ServiceAccount of " + NS)
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.serviceAccounts().inNamespace(NS).withName("default").get() != null);
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @Test
  void aPodServesHttpThroughItsServiceAndItsDnsName() throws Exception {
    client.pods().inNamespace(NS).resource(httpd("web", "hello from a container")).create();
    client
        .services()
        .inNamespace(NS)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of("app", "web"))
                .addNewPort()
                .withPort(80)
                .withProtocol("TCP")
                .withTargetPort(new IntOrString(8080))
                .endPort()
                .endSpec()
                .build())
        .create();
    Pod web = awaitReady("web");
    assertThat(web.getStatus().getPodIP()).startsWith("10.244.0.");

    // From this machine: the pod IP on the bridge, and the Service's cluster IP via kube-proxy.
    String clusterIp =
        client.services().inNamespace(NS).withName("web").get().getSpec().getClusterIP();
    await("the Service to answer on " + clusterIp)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> get("http://" + clusterIp + "/").contains("hello from a container"));
    assertThat(get("http://" + web.getStatus().getPodIP() + ":8080/"))
        .contains("hello from a container");

    // From another Pod, by the Service's DNS name (search path and the full name).
    client.pods().inNamespace(NS).resource(shell("client")).create();
    awaitReady("client");
    await("wget from a Pod through cluster DNS")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                PodExec.sh(
                        client,
                        NS,
                        "client",
                        Duration.ofSeconds(20),
                        "timeout 5 wget -q -O- http://web/")
                    .stdout()
                    .contains("hello from a container"));
    assertThat(
            PodExec.sh(
                    client,
                    NS,
                    "client",
                    Duration.ofSeconds(20),
                    "timeout 5 wget -q -O- http://web." + NS + ".svc.cluster.local/")
                .stdout())
        .contains("hello from a container");
    assertThat(ClusterDns.resolve("web." + NS + ".svc.cluster.local"))
        .extracting(InetAddress::getHostAddress)
        .containsExactly(clusterIp);
    assertThat(ClusterDns.resolve("no-such-service." + NS + ".svc.cluster.local")).isEmpty();

    // kubectl logs: the API server reaches the kubelet by the node's name.
    String log = client.pods().inNamespace(NS).withName("client").getLog();
    assertThat(log).contains("client started");
  }

  @Test
  void statefulSetPodsResolveByHostnameUnderTheirHeadlessService() throws Exception {
    client
        .services()
        .inNamespace(NS)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("members")
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Map.of("app", "members"))
                .addNewPort()
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build())
        .create();
    client
        .apps()
        .statefulSets()
        .inNamespace(NS)
        .resource(
            new StatefulSetBuilder()
                .withNewMetadata()
                .withName("members")
                .endMetadata()
                .withNewSpec()
                .withServiceName("members")
                .withReplicas(2)
                .withPodManagementPolicy("Parallel")
                .withNewSelector()
                .withMatchLabels(Map.of("app", "members"))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Map.of("app", "members"))
                .endMetadata()
                .withSpec(shell("x").getSpec())
                .endTemplate()
                .endSpec()
                .build())
        .create();
    Pod first = awaitReady("members-0");
    Pod second = awaitReady("members-1");
    await("members-0 and members-1 in cluster DNS")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(ClusterDns.resolve("members-0.members." + NS + ".svc.cluster.local"))
                  .extracting(InetAddress::getHostAddress)
                  .containsExactly(first.getStatus().getPodIP());
              assertThat(ClusterDns.resolve("members-1.members." + NS + ".svc.cluster.local"))
                  .extracting(InetAddress::getHostAddress)
                  .containsExactly(second.getStatus().getPodIP());
            });
    // From inside a member, by the short name its search path completes.
    assertThat(
            PodExec.sh(
                    client,
                    NS,
                    "members-0",
                    Duration.ofSeconds(20),
                    "getent hosts members-1.members")
                .stdout())
        .contains(second.getStatus().getPodIP());
  }

  @Test
  void aClaimKeepsItsDataForTheNextPodAndGoesWithTheClaim() throws Exception {
    client
        .persistentVolumeClaims()
        .inNamespace(NS)
        .resource(
            new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName("data")
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources()
                .withRequests(Map.of("storage", new Quantity("64Mi")))
                .endResources()
                .endSpec()
                .build())
        .create();
    await("the claim to be bound by the default StorageClass")
        .atMost(Duration.ofSeconds(30))
        .until(() -> "Bound".equals(claim().getStatus().getPhase()));
    assertThat(claim().getSpec().getStorageClassName()).isEqualTo(LocalNode.STORAGE_CLASS);
    String volumeName = claim().getSpec().getVolumeName();
    Path dir =
        Path.of(
            client
                .persistentVolumes()
                .withName(volumeName)
                .get()
                .getSpec()
                .getHostPath()
                .getPath());

    client
        .pods()
        .inNamespace(NS)
        .resource(withClaim("writer", "echo kept > /data/file; sleep 3600"))
        .create();
    awaitReady("writer");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(dir.resolve("file")));
    client.pods().inNamespace(NS).withName("writer").withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName("writer").get() == null);

    client.pods().inNamespace(NS).resource(withClaim("reader", "sleep 3600")).create();
    awaitReady("reader");
    assertThat(PodExec.sh(client, NS, "reader", Duration.ofSeconds(20), "cat /data/file").stdout())
        .isEqualTo("kept\n");

    client.pods().inNamespace(NS).withName("reader").withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName("reader").get() == null);
    client.persistentVolumeClaims().inNamespace(NS).withName("data").delete();
    await("reclaim policy Delete: the volume and its directory go with the claim")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client.persistentVolumes().withName(volumeName).get() == null
                    && !Files.exists(dir));
  }

  private PersistentVolumeClaim claim() {
    return client.persistentVolumeClaims().inNamespace(NS).withName("data").get();
  }

  private Pod awaitReady(String name) {
    await(name + " to run as a container and be Ready")
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              Pod p = client.pods().inNamespace(NS).withName(name).get();
              return p != null
                  && p.getStatus().getConditions().stream()
                      .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
            });
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static Pod httpd(String name, String content) {
    return new PodBuilder(
            pod(
                name,
                "mkdir -p /tmp/www && echo '"
                    + content
                    + "' > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"))
        .editMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .editSpec()
        .editFirstContainer()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/")
        .withPort(new IntOrString(8080))
        .endHttpGet()
        .withPeriodSeconds(1)
        .endReadinessProbe()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Pod shell(String name) {
    return pod(name, "echo " + name + " started; exec sleep 3600");
  }

  private static Pod withClaim(String name, String script) {
    return new PodBuilder(pod(name, script))
        .editSpec()
        .editFirstContainer()
        .addNewVolumeMount()
        .withName("data")
        .withMountPath("/data")
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("data")
        .withNewPersistentVolumeClaim()
        .withClaimName("data")
        .endPersistentVolumeClaim()
        .endVolume()
        .endSpec()
        .build();
  }

  /** A Pod of one container from the workloads image running {@code script} under sh. */
  private static Pod pod(String name, String script) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(1L)
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .withImagePullPolicy("Never")
        .withCommand("sh", "-c", script)
        .endContainer()
        .endSpec()
        .build();
  }

  private static String get(String url) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
