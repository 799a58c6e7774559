package dev.bosun.web;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.KubeletSimulator;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The main job: a local control plane, the simulated kubelet, the WebService operator, and a sample
 * WebService, with a live status table, until interrupted ({@code ./bosun up}).
 */
public final class LocalRun {

  private LocalRun() {}

  public static void main(String[] args) throws Exception {
    Path repo = LocalControlPlane.repoRoot();
    Path workDir = repo.resolve(".bosun/control-plane");
    if (Files.exists(workDir)) {
      try (var walk = Files.walk(workDir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    step(
        "starting the local control plane (etcd, kube-apiserver, kube-controller-manager "
            + LocalControlPlane.VERSION
            + ")");
    LocalControlPlane plane = LocalControlPlane.start(workDir, true);
    KubernetesClient client = plane.adminClient();
    KubeletSimulator kubelet = new KubeletSimulator(client, Duration.ofSeconds(1)).start();

    step("installing the WebService CRD");
    Crds.install(client, "webservices.web.bosun.dev");

    step("starting " + WebServiceOperator.NAME);
    OperatorRuntime operator =
        Main.create(OperatorSettings.local(WebServiceOperator.NAME), client).start();

    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println();
                  step("stopping");
                  operator.close();
                  kubelet.close();
                  plane.close();
                }));

    String ns = "demo";
    Crds.namespace(client, ns, java.util.Map.of(), java.util.Map.of());
    Path sample = repo.resolve("webservice-operator/samples/hello-web.yaml");
    step("applying " + repo.relativize(sample) + " in namespace " + ns);
    try (InputStream in = Files.newInputStream(sample)) {
      WebService ws = client.resources(WebService.class).load(in).item();
      client.resources(WebService.class).inNamespace(ns).resource(ws).create();
    }

    System.out.printf(
        "%nThe platform is up. In another terminal:%n"
            + "  export KUBECONFIG=%s%n"
            + "  kubectl get webservices -A        # also: kubectl get ws -n demo -o wide%n"
            + "  kubectl apply -n demo -f webservice-operator/samples/hello-web.yaml%n"
            + "Operator health and metrics: http://127.0.0.1:%d/healthz  /readyz  /metrics%n"
            + "Logs of the control plane: %s%n"
            + "Press Ctrl-C to stop.%n%n",
        plane.kubeconfig(), operator.httpPort(), plane.workDir().resolve("logs"));

    // The live table: printed again whenever it changes, until Ctrl-C ends the JVM.
    String[] last = {null};
    Executors.newSingleThreadScheduledExecutor()
        .scheduleWithFixedDelay(
            () -> {
              String table = table(client);
              if (!Objects.equals(table, last[0])) {
                System.out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "\n" + table);
                last[0] = table;
              }
            },
            0,
            1,
            TimeUnit.SECONDS);
    new CountDownLatch(1).await();
  }

  private static String table(KubernetesClient client) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "  %-10s %-14s %-6s %-22s %-9s %s%n",
            "NAMESPACE", "WEBSERVICE", "READY", "REASON", "AVAILABLE", "URL"));
    for (WebService ws : client.resources(WebService.class).inAnyNamespace().list().getItems()) {
      var status = ws.getStatus();
      var ready =
          status == null ? null : Conditions.find(status.getConditions(), "Ready").orElse(null);
      sb.append(
          String.format(
              "  %-10s %-14s %-6s %-22s %-9s %s%n",
              ws.getMetadata().getNamespace(),
              ws.getMetadata().getName(),
              ready == null ? "-" : ready.getStatus(),
              ready == null ? "Pending" : ready.getReason(),
              status == null
                  ? "-"
                  : status.getAvailableReplicas() + "/" + ws.getSpec().getReplicas(),
              status == null || status.getUrl() == null ? "-" : status.getUrl()));
    }
    return sb.toString();
  }

  private static void step(String what) {
    System.out.println("==> " + what);
  }
}
