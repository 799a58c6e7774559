package dev.bosun.e2e;

import dev.bosun.common.testing.KubeletSimulator;
import dev.bosun.common.testing.LocalControlPlane;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The main job ({@code ./bosun up}): a local control plane, the platform umbrella chart installed
 * on it, the four operators running under their charts' ServiceAccounts, a sample of each kind, and
 * a live status table of every Bosun resource until interrupted.
 */
public final class PlatformRun {

  /** The kinds the table shows, in the order a user meets them. */
  private static final List<String[]> KINDS =
      List.of(
          new String[] {"web.bosun.dev/v1alpha1", "WebService"},
          new String[] {"config.bosun.dev/v1alpha1", "ConfigMapSync"},
          new String[] {"config.bosun.dev/v1alpha1", "SecretSync"},
          new String[] {"config.bosun.dev/v1alpha1", "ConfigMonitor"},
          new String[] {"etcd.bosun.dev/v1alpha1", "EtcdCluster"},
          new String[] {"etcd.bosun.dev/v1alpha1", "EtcdBackup"},
          new String[] {"mysql.bosun.dev/v1alpha1", "MySQLCluster"},
          new String[] {"mysql.bosun.dev/v1alpha1", "MySQLBackup"});

  private PlatformRun() {}

  public static void main(String[] args) throws Exception {
    Path repo = LocalControlPlane.repoRoot();
    Path workDir = repo.resolve(".bosun/control-plane");
    deleteRecursively(workDir);
    step(
        "starting the local control plane (etcd, kube-apiserver, kube-controller-manager "
            + LocalControlPlane.VERSION
            + ")");
    LocalControlPlane plane = LocalControlPlane.start(workDir, true);
    KubernetesClient admin = plane.adminClient();
    KubeletSimulator kubelet = new KubeletSimulator(admin, Duration.ofSeconds(1)).start();

    step("installing the platform chart (charts/platform) as release bosun in bosun-system");
    PlatformRelease release = PlatformRelease.install(new E2eCluster.Local(plane));
    takeBackStopSignals();

    step("starting the four operators, each under its chart's ServiceAccount");
    RunningPlatform platform = new RunningPlatform(release, PlatformChart.OPERATORS).start();

    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println();
                  step("stopping");
                  platform.close();
                  kubelet.close();
                  plane.close();
                }));

    for (Sample sample : Sample.ALL) {
      step("applying " + sample.file() + " in namespace " + sample.namespace());
      if (sample.mysqlCluster() != null) {
        Sample.namespace(admin, sample.namespace());
        platform.runMySqlInstances(
            sample.namespace(), sample.mysqlCluster(), sample.mysqlInstances());
      }
      sample.apply(admin, repo);
      platform.runWorkloadsIn(sample.namespace());
    }

    System.out.printf(
        "%nThe platform is up. In another terminal:%n"
            + "  export KUBECONFIG=%s%n"
            + "  kubectl get webservices,configmapsyncs,configmonitors,etcdclusters,mysqlclusters -A%n"
            + "  kubectl describe webservice hello-web -n team-a      # conditions and events%n"
            + "  kubectl get deployments,pods -n bosun-system       # the release's operator Deployments%n"
            + "Logs of the control plane: %s%n"
            + "Press Ctrl-C to stop.%n%n",
        plane.kubeconfig(), plane.workDir().resolve("logs"));

    // The live table: printed again whenever it changes, until Ctrl-C ends the JVM.
    String[] last = {null};
    Executors.newSingleThreadScheduledExecutor()
        .scheduleWithFixedDelay(
            () -> {
              String table = table(admin);
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

  /** Every Bosun resource with its Ready condition: the table a user watches converge. */
  static String table(KubernetesClient client) {
    StringBuilder sb = new StringBuilder();
    String row = "  %-14s %-10s %-16s %-6s %-24s %s%n";
    sb.append(String.format(row, "KIND", "NAMESPACE", "NAME", "READY", "REASON", "MESSAGE"));
    for (String[] kind : KINDS) {
      List<GenericKubernetesResource> items;
      try {
        items =
            client.genericKubernetesResources(kind[0], kind[1]).inAnyNamespace().list().getItems();
      } catch (RuntimeException notServed) {
        continue; // an operator left out of the release: its kinds are not installed
      }
      items.stream()
          .sorted(
              Comparator.comparing((GenericKubernetesResource r) -> r.getMetadata().getNamespace())
                  .thenComparing(r -> r.getMetadata().getName()))
          .forEach(
              r -> {
                Map<?, ?> ready = readyCondition(r);
                String message = ready == null ? "" : String.valueOf(ready.get("message"));
                sb.append(
                    String.format(
                        row,
                        kind[1],
                        r.getMetadata().getNamespace(),
                        r.getMetadata().getName(),
                        ready == null ? "-" : ready.get("status"),
                        ready == null ? "Pending" : ready.get("reason"),
                        message.length() > 70 ? message.substring(0, 67) + "..." : message));
              });
    }
    return sb.toString();
  }

  private static Map<?, ?> readyCondition(GenericKubernetesResource r) {
    if (r.getAdditionalProperties().get("status") instanceof Map<?, ?> status
        && status.get("conditions") instanceof List<?> conditions) {
      return conditions.stream()
          .filter(c -> c instanceof Map<?, ?> m && "Ready".equals(m.get("type")))
          .map(c -> (Map<?, ?>) c)
          .findFirst()
          .orElse(null);
    }
    return null;
  }

  /**
   * helm-java runs Helm's Go code in this JVM, and Helm's install registers Go handlers for SIGINT
   * and SIGTERM, which then never reach the JVM: Ctrl-C would do nothing. Take them back.
   */
  @SuppressWarnings("restriction")
  private static void takeBackStopSignals() {
    sun.misc.Signal.handle(new sun.misc.Signal("INT"), s -> System.exit(130));
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> System.exit(143));
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void step(String what) {
    System.out.println("==> " + what);
  }
}
