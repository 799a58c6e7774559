package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.platform.PlatformChart;
import dev.bosun.platform.PlatformRelease;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The platform on the real node, checked as a user would: the operators are the charts' Pods (two
 * each, one leading) running as non-root on a read-only root filesystem; each operator's admission
 * webhook (on by default) refuses a bad spec through its Service; a WebService answers HTTP through
 * its Service from another Pod, keeps answering while its image rolls, and serves new content after
 * its synced ConfigMap changes and the ConfigMonitor rolls it; deleting the leading operator Pod
 * hands the Lease to the other replica, which goes on reconciling.
 */
@ExtendWith(RealNodeExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodePlatformIT {

  private static final String SOURCE_NS = "platform-config";
  private static final String APP_NS = "web-team";
  private static final String ADMISSION_NS = "admission-check";
  private static RealNodePlatform platform;
  private static KubernetesClient admin;
  private static String image;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    admin = platform.admin();
    image = platform.cluster().node().workloadsImage();
  }

  @Test
  @Order(1)
  void operatorsRunAsTheChartsPodsNonRootOnAReadOnlyRootWithOneLeaderEach() {
    for (String operator : PlatformChart.OPERATORS) {
      List<Pod> pods = platform.pods(operator);
      assertThat(pods).as(operator + " pods").hasSize(RealNodePlatform.REPLICAS);
      for (Pod pod : pods) {
        assertThat(pod.getStatus().getContainerStatuses())
            .allSatisfy(
                c -> {
                  assertThat(c.getReady()).isTrue();
                  assertThat(c.getImage()).contains("bosun/" + operator + "-operator");
                });
        PodExec.Result probe =
            PodExec.sh(
                admin,
                PlatformRelease.NAMESPACE,
                pod.getMetadata().getName(),
                Duration.ofSeconds(30),
                "id -u; touch /probe 2>/dev/null && echo writable || echo read-only");
        assertThat(probe.stdout())
            .as(operator + " user and root filesystem")
            .isEqualTo("65532\nread-only\n");
      }
      await(operator + " to have a leader among its Pods")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(platform.lease(operator).getSpec().getHolderIdentity())
                      .isIn(pods.stream().map(p -> p.getMetadata().getName()).toList()));
    }
  }

  /**
   * One kind of each operator: a spec only the operator's checks refuse (the CRD schema passes it)
   * and one it accepts, the good one as a server-side dry run (through the same admission, with
   * nothing left for an operator to run).
   *
   * @param apiVersion the kind's API version
   * @param kind the kind
   * @param webhook the webhook entry that answers its creates
   * @param bad a spec the webhook refuses
   * @param field what the refusal names
   * @param good a spec the webhook accepts
   */
  private record AdmissionCase(
      String apiVersion, String kind, String webhook, String bad, String field, String good) {}

  private static final List<AdmissionCase> ADMISSION_CASES =
      List.of(
          new AdmissionCase(
              "web.bosun.dev/v1alpha1",
              "WebService",
              "webservices.web.bosun.dev",
              "{image: nginx, ports: [{name: http, port: 80}],"
                  + " autoscaling: {minReplicas: 5, maxReplicas: 2}}",
              "spec.autoscaling.minReplicas",
              "{image: nginx, ports: [{name: http, port: 80}]}"),
          new AdmissionCase(
              "config.bosun.dev/v1alpha1",
              "ConfigMapSync",
              "configmapsyncs.config.bosun.dev",
              "{source: {name: site}, destinations: {namespaceSelector:"
                  + " {matchExpressions: [{key: tier, operator: In}]}}}",
              "spec.destinations.namespaceSelector.matchExpressions[0] (tier In)",
              "{source: {name: site}, destinations: {namespaces: [web-team]}}"),
          new AdmissionCase(
              "etcd.bosun.dev/v1alpha1",
              "EtcdCluster",
              "etcdclusters.etcd.bosun.dev",
              "{version: 3.5.17, metrics: {enabled: true, port: 2379}}",
              "metrics.port 2379",
              "{version: 3.5.17}"),
          new AdmissionCase(
              "mysql.bosun.dev/v1alpha1",
              "MySQLCluster",
              "mysqlclusters.mysql.bosun.dev",
              "{port: 9104, metrics: {enabled: true, port: 9104}}",
              "metrics.port",
              "{flavour: MariaDB, version: '11.4', replicas: 1}"));

  /**
   * The webhooks on by default, through the real route: the API server (a host process) calls each
   * chart's webhook Service, kube-proxy sends it to an operator Pod on the pod network, and the Pod
   * answers over TLS with the certificate whose CA the operator put in the configuration.
   */
  @Test
  @Order(2)
  void everyOperatorsWebhookRefusesABadSpecNamingTheFieldAndAcceptsAGoodOne() {
    RealNodePods.namespace(admin, ADMISSION_NS, Map.of());
    for (AdmissionCase c : ADMISSION_CASES) {
      Instant start = Instant.now();
      assertThatThrownBy(() -> admin.resource(object(c, "bad", c.bad())).create())
          .as(c.kind() + " with a bad spec")
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e ->
                  assertThat(refusal(e))
                      .contains("admission webhook \"" + c.webhook() + "\" denied the request")
                      .contains(c.field()));
      Duration refused = Duration.between(start, Instant.now());
      assertThat(
              admin
                  .genericKubernetesResources(c.apiVersion(), c.kind())
                  .inNamespace(ADMISSION_NS)
                  .withName("bad")
                  .get())
          .as("a refused " + c.kind() + " is not stored")
          .isNull();

      start = Instant.now();
      admin.resource(object(c, "good", c.good())).dryRun().create();
      Duration accepted = Duration.between(start, Instant.now());
      System.err.printf(
          "[e2e] %s: bad refused by its webhook in %d ms, good accepted in %d ms%n",
          c.kind(), refused.toMillis(), accepted.toMillis());
    }
  }

  /** What the API server answered, wherever in the client's exception chain it is. */
  private static String refusal(Throwable thrown) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      text.append(t.getMessage()).append('\n');
      if (t instanceof KubernetesClientException k && k.getStatus() != null) {
        text.append(k.getStatus().getMessage()).append('\n');
      }
    }
    return text.toString();
  }

  private static GenericKubernetesResource object(AdmissionCase c, String name, String spec) {
    return Serialization.unmarshal(
        // Block style at the top: a text starting with "{" would be read as JSON.
        "apiVersion: %s\nkind: %s\nmetadata: {name: %s, namespace: %s}\nspec: %s\n"
            .formatted(c.apiVersion(), c.kind(), name, ADMISSION_NS, spec),
        GenericKubernetesResource.class);
  }

  @Test
  @Order(3)
  void webServiceAnswersThroughItsServiceKeepsAnsweringWhileItRollsAndServesSyncedConfig() {
    createNamespaces();
    admin
        .configMaps()
        .inNamespace(SOURCE_NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("site")
                .withLabels(Map.of("config.bosun.dev/sync-source", "true"))
                .withAnnotations(Map.of("config.bosun.dev/allow-sync-to", APP_NS))
                .endMetadata()
                .withData(Map.of("greeting", "hello v1"))
                .build())
        .create();
    apply(
        """
        apiVersion: config.bosun.dev/v1alpha1
        kind: ConfigMapSync
        metadata: {name: site, namespace: %s}
        spec:
          source: {name: site}
          destinations: {namespaces: [%s]}
        """
            .formatted(SOURCE_NS, APP_NS));
    apply(
        """
        apiVersion: web.bosun.dev/v1alpha1
        kind: WebService
        metadata: {name: hello, namespace: %s}
        spec:
          image: %s
          imagePullPolicy: Never
          replicas: 2
          command: [sh, -c, 'mkdir -p /tmp/www && echo "$GREETING" > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
          ports: [{name: http, port: 80, containerPort: 8080}]
          env: [{name: GREETING, valueFrom: {configMapKeyRef: {name: site, key: greeting}}}]
          readinessProbe: {httpGet: {path: /}}
          securityContext: {runAsUser: 65532}
        """
            .formatted(APP_NS, image));
    apply(
        """
        apiVersion: config.bosun.dev/v1alpha1
        kind: ConfigMonitor
        metadata: {name: hello, namespace: %s}
        spec:
          configMaps: [site]
          selector: {matchLabels: {app.kubernetes.io/instance: hello}}
          strategy: RollingUpdate
          debounceSeconds: 1
        """
            .formatted(APP_NS));
    awaitReady("WebService", "hello", Duration.ofMinutes(3));
    RealNodePods.run(admin, APP_NS, RealNodePods.shell("client", image, Map.of()));

    // A request from a Pod, by the Service's name.
    await("hello through its Service from a Pod")
        .atMost(Duration.ofSeconds(60))
        .until(() -> fetch().equals("hello v1"));

    // An image change rolls the Pods while a bounded client loop keeps asking.
    String v2 = platform.cluster().node().tagImage(image, "docker.io/bosun/workloads:web-v2");
    CompletableFuture<PodExec.Result> loop =
        CompletableFuture.supplyAsync(
            () ->
                PodExec.sh(
                    admin,
                    APP_NS,
                    "client",
                    Duration.ofSeconds(150),
                    // 250 requests at most, 100 s at most; one retry per request, as any client
                    // keeps a connection pool would; "fail" counts requests that failed twice.
                    "ok=0; fail=0; end=$(( $(date +%s) + 100 )); i=0;"
                        + " while [ $i -lt 250 ] && [ $(date +%s) -lt $end ]; do"
                        + " if timeout 3 wget -q -O- http://hello/ >/dev/null 2>&1"
                        + " || { sleep 0.2; timeout 3 wget -q -O- http://hello/ >/dev/null 2>&1; };"
                        + " then ok=$((ok+1)); else fail=$((fail+1)); fi;"
                        + " i=$((i+1)); [ -f /tmp/stop ] && break; sleep 0.2; done;"
                        + " echo ok=$ok fail=$fail"));
    patchWebService("hello", Map.of("image", v2));
    await("every hello Pod on the new image")
        .atMost(Duration.ofMinutes(3))
        .until(
            () ->
                webPods().stream().allMatch(p -> runsImage(p, v2) && RealNodePods.ready(p))
                    && webPods().size() == 2);
    awaitReady("WebService", "hello", Duration.ofMinutes(2));
    PodExec.sh(admin, APP_NS, "client", Duration.ofSeconds(10), "touch /tmp/stop");
    String counts = loop.join().stdout().trim();
    System.err.println("[e2e] requests while the image rolled: " + counts);
    Matcher m = Pattern.compile("ok=(\\d+) fail=(\\d+)").matcher(counts);
    assertThat(m.find()).as(counts).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as("answered requests").isGreaterThan(10);
    assertThat(Integer.parseInt(m.group(2))).as("requests that failed twice").isZero();

    // The source changes: the copy follows, the ConfigMonitor rolls, new Pods serve the new text.
    admin
        .configMaps()
        .inNamespace(SOURCE_NS)
        .withName("site")
        .edit(c -> new ConfigMapBuilder(c).withData(Map.of("greeting", "hello v2")).build());
    await("the rolled Pods to serve the synced greeting")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> fetch().equals("hello v2") && webPods().stream().allMatch(RealNodePods::ready));
    await("every answer to carry the new greeting once the rollout is done")
        .atMost(Duration.ofMinutes(2))
        .until(
            () ->
                List.of(fetch(), fetch(), fetch(), fetch()).stream().allMatch("hello v2"::equals));
  }

  @Test
  @Order(4)
  void theLeadingOperatorPodDeletedTheOtherLeadsWithinItsLeaseAndReconciles() {
    Lease before = platform.lease("webservice");
    String leader = before.getSpec().getHolderIdentity();
    int leaseSeconds = before.getSpec().getLeaseDurationSeconds();
    Instant deleted = Instant.now();
    admin
        .pods()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withName(leader)
        .withGracePeriod(0)
        .delete();
    await("another webservice operator Pod to lead")
        .atMost(Duration.ofSeconds(leaseSeconds + 30L))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Lease now = platform.lease("webservice");
              return now != null
                  && now.getSpec().getHolderIdentity() != null
                  && !leader.equals(now.getSpec().getHolderIdentity());
            });
    long seconds = Duration.between(deleted, Instant.now()).toSeconds();
    System.err.println(
        "[e2e] new webservice leader after " + seconds + " s (Lease " + leaseSeconds + " s)");
    assertThat(seconds).isLessThanOrEqualTo(leaseSeconds + 15L);

    // The new leader reconciles: a scale-up converges, with no duplicate Deployment.
    patchWebService("hello", Map.of("replicas", 3));
    await("hello scaled to 3 by the new leader")
        .atMost(Duration.ofMinutes(2))
        .until(() -> webPods().stream().filter(RealNodePods::ready).count() == 3);
    awaitReady("WebService", "hello", Duration.ofMinutes(2));
    assertThat(admin.apps().deployments().inNamespace(APP_NS).list().getItems()).hasSize(1);
    await("the chart's Deployment back to two ready webservice operator Pods")
        .atMost(Duration.ofMinutes(3))
        .until(
            () ->
                platform.pods("webservice").stream().filter(RealNodePods::ready).count()
                    == RealNodePlatform.REPLICAS);
  }

  private void createNamespaces() {
    RealNodePods.namespace(admin, SOURCE_NS, Map.of());
    RealNodePods.namespace(admin, APP_NS, Map.of("config.bosun.dev/accept-sync-from", SOURCE_NS));
  }

  private String fetch() {
    PodExec.Result r =
        PodExec.sh(
            admin, APP_NS, "client", Duration.ofSeconds(20), "timeout 5 wget -q -O- http://hello/");
    return r.stdout().trim();
  }

  private List<Pod> webPods() {
    return admin
        .pods()
        .inNamespace(APP_NS)
        .withLabel("app.kubernetes.io/instance", "hello")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static boolean runsImage(Pod p, String reference) {
    return p.getSpec().getContainers().get(0).getImage().equals(reference);
  }

  private void apply(String yaml) {
    GenericKubernetesResource resource =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    admin.resource(resource).create();
  }

  private void patchWebService(String name, Map<String, Object> spec) {
    Edits.edit(
        admin
            .genericKubernetesResources("web.bosun.dev/v1alpha1", "WebService")
            .inNamespace(APP_NS)
            .withName(name),
        r -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> s = (Map<String, Object>) r.getAdditionalProperties().get("spec");
          s.putAll(spec);
          return r;
        });
  }

  private void awaitReady(String kind, String name, Duration timeout) {
    await(kind + " " + name + " Ready")
        .atMost(timeout)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                Resources.ready(
                    Resources.get(admin, "web.bosun.dev/v1alpha1", kind, APP_NS, name)));
  }
}
