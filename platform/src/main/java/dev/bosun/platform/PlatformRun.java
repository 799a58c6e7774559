package dev.bosun.platform;

import dev.bosun.common.testing.KubeletSimulator;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.RealNodeCluster;
import dev.bosun.common.testing.ScratchDirectories;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * on it, a sample of each kind, and a live status table of every Bosun resource until interrupted.
 * By default a real node joins the control plane and everything runs as containers: the operators
 * as the chart's Deployments from their images, the workloads from the operators' own Pod specs.
 * With {@code -Dbosun.up.simulated=true} ({@code ./bosun up --simulated}) a simulated kubelet marks
 * Pods Ready while the operators run in this JVM under their charts' ServiceAccounts and etcd and
 * MariaDB run as local processes.
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
    if (Boolean.getBoolean("bosun.up.simulated")) {
      runSimulated();
    } else {
      runOnRealNode();
    }
  }

  /** The platform on a real node: every Pod a container. */
  private static void runOnRealNode() throws Exception {
    Path repo = LocalControlPlane.repoRoot();
    Path workDir = repo.resolve(".bosun/real-node");
    ScratchDirectories.delete(workDir);
    step(
        "starting the local control plane "
            + LocalControlPlane.VERSION
            + " and a real node (containerd, runc, CNI bridge, kubelet, kube-proxy, kube-scheduler,"
            + " cluster DNS, a hostPath provisioner)");
    RealNodeCluster cluster = RealNodeCluster.start(workDir, true);
    KubernetesClient admin = cluster.adminClient();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println();
                  step(
                      "stopping (the node tears down every container, namespace and rule it made)");
                  cluster.close();
                }));
    step("importing the operator images and installing the platform chart (one Pod per operator)");
    RealNodePlatform.install(cluster, 1);
    takeBackStopSignals();
    RealNodeSamples samples = new RealNodeSamples(cluster);
    for (Sample sample : Sample.ALL) {
      step("applying " + sample.file() + " in namespace " + sample.namespace());
      samples.apply(admin, repo, sample);
    }
    printHelp(
        cluster.controlPlane().kubeconfig(),
        "  kubectl get pods -A -o wide                          # every Pod a container, with its pod IP%n"
            + "  kubectl logs -n team-a catalog-db-0                  # a MariaDB container's log%n"
            + "  kubectl exec -n team-a demo-0 -- etcdctl endpoint status -w table%n",
        workDir);
    watch(admin);
  }

  /** The platform with a simulated kubelet and the operators in this JVM. */
  private static void runSimulated() throws Exception {
    Path repo = LocalControlPlane.repoRoot();
    Path workDir = repo.resolve(".bosun/control-plane");
    ScratchDirectories.delete(workDir);
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

    printHelp(plane.kubeconfig(), "", plane.workDir());
    watch(admin);
  }

  private static void printHelp(Path kubeconfig, String extra, Path workDir) {
    System.out.printf(
        "%nThe platform is up. In another terminal:%n"
            + "  export KUBECONFIG=%s%n"
            + "  kubectl get webservices,configmapsyncs,configmonitors,etcdclusters,mysqlclusters -A%n"
            + "  kubectl describe webservice hello-web -n team-a      # conditions and events%n"
            + "  kubectl get deployments,pods -n bosun-system       # the release's operator Deployments%n"
            + extra
            + "Logs of the control plane and the node: %s%n"
            + "Press Ctrl-C to stop.%n%n",
        kubeconfig,
        workDir);
  }

  /** The live table: printed again whenever it changes, until Ctrl-C ends the JVM. */
  private static void watch(KubernetesClient admin) throws InterruptedException {
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
  public static void takeBackStopSignals() {
    sun.misc.Signal.handle(new sun.misc.Signal("INT"), s -> System.exit(130));
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> System.exit(143));
  }

  private static void step(String what) {
    System.out.println("==> " + what);
  }
}
