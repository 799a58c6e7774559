package dev.bosun.web.bench;

import static dev.bosun.web.WebServices.webService;

import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.web.dependent.DeploymentDependent;
import dev.bosun.web.dependent.ServiceDependent;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;

/**
 * What one request of each kind the WebService operator or its baseline sends costs the control
 * plane: CPU milliseconds of the API server, etcd and the controller manager (which reacts to the
 * write) per request, read from /proc before and after N requests from 8 threads, twice. It shows
 * which of the operator's requests are worth cutting: a server-side-apply create against a POST, a
 * status apply against a merge patch, a read.
 */
public final class RequestCostBenchmark {

  static long cpuTicks(String needle) throws Exception {
    long sum = 0;
    for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
      String cmd = p.info().command().orElse("");
      if (cmd.endsWith(needle)) {
        sum += CpuMeter.ticksOf(p.pid());
      }
    }
    return sum;
  }

  /**
   * Waits until the API server, etcd and the controller manager together use under a fifth of a
   * core over half a second: the previous requests and what they set off are done.
   */
  static void awaitQuietControlPlane() throws Exception {
    long[] last = {controlPlaneTicks()};
    Awaitility.await("a quiet control plane")
        .pollDelay(Duration.ofMillis(500))
        .pollInterval(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              long now = controlPlaneTicks();
              boolean quiet = now - last[0] <= 10;
              last[0] = now;
              return quiet;
            });
  }

  private static long controlPlaneTicks() throws Exception {
    return cpuTicks("kube-apiserver") + cpuTicks("etcd") + cpuTicks("kube-controller-manager");
  }

  static void measure(String what, int n, WebServiceBenchmark.Creator op) throws Exception {
    awaitQuietControlPlane();
    long a0 = cpuTicks("kube-apiserver"), e0 = cpuTicks("etcd");
    long c0 = cpuTicks("kube-controller-manager");
    long t0 = System.nanoTime();
    WebServiceBenchmark.createAll(n, op);
    long t1 = System.nanoTime();
    // What the writes set off (the controller manager's ReplicaSets, Endpoints) is counted too.
    awaitQuietControlPlane();
    long a1 = cpuTicks("kube-apiserver"), e1 = cpuTicks("etcd");
    long c1 = cpuTicks("kube-controller-manager");
    System.out.printf(
        "  %-32s %5d %7.1f s %9.2f %7.2f %7.2f%n",
        what, n, (t1 - t0) / 1e9, (a1 - a0) * 10.0 / n, (e1 - e0) * 10.0 / n, (c1 - c0) * 10.0 / n);
  }

  static WebService ws(String ns, int i) {
    WebService ws = webService(String.format("svc-%04d", i), "registry.example.com/bench:1.0", 1);
    ws.getMetadata().setNamespace(ns);
    ws.getMetadata().setGeneration(1L);
    return ws;
  }

  static PatchContext ssa() {
    return new PatchContext.Builder()
        .withPatchType(PatchType.SERVER_SIDE_APPLY)
        .withFieldManager("bench")
        .withForce(true)
        .build();
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.getInteger("bench.count", 400);
    LocalControlPlane plane =
        LocalControlPlane.start(Files.createTempDirectory("bosun-bench"), false);
    try (KubernetesClient c = plane.adminClient()) {
      Crds.install(c, "webservices.web.bosun.dev");
      for (String ns : List.of("warm", "post", "ssa", "ws")) {
        Crds.namespace(c, ns, Map.of(), Map.of());
      }
      System.out.printf(
          "%nControl-plane CPU per request, Kubernetes %s, 8 threads (ms of CPU per request; the"
              + " controller manager's is what the write sets off)%n",
          LocalControlPlane.VERSION);
      System.out.printf(
          "  %-32s %5s %9s %9s %7s %7s%n", "request", "n", "wall", "apiserver", "etcd", "ctrl-mgr");
      measure(
          "(warm-up) Deployment apply",
          100,
          i -> {
            var d = DeploymentDependent.desiredDeployment(ws("warm", i), Optional.empty());
            d.getSpec().setReplicas(0);
            c.resource(d).patch(ssa());
          });
      for (int rep = 0; rep < 2; rep++) {
        measureDeploymentsAndServices(c, n, rep * n);
        measureWebServices(c, n, rep * n);
      }
    }
    plane.close();
  }

  /** Deployments and Services as the operator and a plain client write them. */
  private static void measureDeploymentsAndServices(KubernetesClient c, int n, int base)
      throws Exception {
    measure(
        "Deployment create (POST)",
        n,
        i -> {
          var d = DeploymentDependent.desiredDeployment(ws("post", base + i), Optional.empty());
          d.getSpec().setReplicas(0);
          c.resource(d).create();
        });
    measure(
        "Deployment create (apply)",
        n,
        i -> {
          var d = DeploymentDependent.desiredDeployment(ws("ssa", base + i), Optional.empty());
          d.getSpec().setReplicas(0);
          c.resource(d).patch(ssa());
        });
    measure(
        "Service read (absent)",
        n,
        i -> c.services().inNamespace("ssa").withName("svc-x" + (base + i)).get());
    measure(
        "Service create (POST)",
        n,
        i -> c.resource(ServiceDependent.desiredService(ws("post", base + i))).create());
    measure(
        "Service create (apply)",
        n,
        i -> c.resource(ServiceDependent.desiredService(ws("ssa", base + i))).patch(ssa()));
  }

  /** WebService creates, status writes of both kinds, and reads. */
  private static void measureWebServices(KubernetesClient c, int n, int base) throws Exception {
    measure(
        "WebService create (POST)",
        n,
        i -> c.resources(WebService.class).resource(ws("ws", base + i)).create());
    measure(
        "WebService status (apply)",
        n,
        i -> c.resource(statusOnly(base + i, 1)).subresource("status").patch(ssa()));
    measure(
        "WebService status (merge patch)",
        n,
        i -> {
          // A second status, so that both kinds of write change what is stored.
          WebService body = statusOnly(base + i, 2);
          c.resources(WebService.class)
              .inNamespace("ws")
              .withName(body.getMetadata().getName())
              .subresource("status")
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  c.getKubernetesSerialization().asJson(Map.of("status", body.getStatus())));
        });
    measure(
        "WebService read",
        n,
        i ->
            c.resources(WebService.class)
                .inNamespace("ws")
                .withName(String.format("svc-%04d", base + i))
                .get());
  }

  /** The status write's body: a WebService's name and a status of four conditions. */
  static WebService statusOnly(int i, long generation) {
    WebService body = new WebService();
    body.getMetadata().setName(String.format("svc-%04d", i));
    body.getMetadata().setNamespace("ws");
    body.setSpec(null);
    body.setStatus(status(generation));
    return body;
  }

  static WebServiceStatus status(long generation) {
    WebServiceStatus s = new WebServiceStatus();
    s.setObservedGeneration(generation);
    List<Condition> cs = new ArrayList<>();
    for (String t : List.of("Ready", "Available", "Progressing", "Degraded")) {
      cs.add(
          new ConditionBuilder()
              .withType(t)
              .withStatus("True")
              .withReason("Because")
              .withMessage("1/1 replicas ready, the rollout of revision abc is complete")
              .withLastTransitionTime("2026-11-26T00:00:00Z")
              .withObservedGeneration(1L)
              .build());
    }
    s.setConditions(cs);
    return s;
  }

  private RequestCostBenchmark() {}
}
