package dev.bosun.platform;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.PodExec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A MariaDB MySQLCluster run by the MySQL operator on the real node, as its user sees it: its
 * status and Pods, and SQL from a client Pod (the node's workloads image, the root password in its
 * environment) through the cluster's Services.
 */
public final class RealNodeMySql {

  public static final String API = "mysql.bosun.dev/v1alpha1";

  private final RealNodePlatform platform;
  private final KubernetesClient admin;
  private final String namespace;
  private final String name;
  private final String client;

  /** The cluster {@code name} in {@code namespace}, reached from the Pod {@code client}. */
  public RealNodeMySql(RealNodePlatform platform, String namespace, String name, String client) {
    this.platform = platform;
    this.admin = platform.admin();
    this.namespace = namespace;
    this.name = name;
    this.client = client;
  }

  /** Creates the cluster: MariaDB 10.11 from the node's workloads image, plus spec lines. */
  public RealNodeMySql create(int replicas, String storage, String extraSpec) {
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: mysql.bosun.dev/v1alpha1
                kind: MySQLCluster
                metadata: {name: %s, namespace: %s}
                spec:
                  replicas: %d
                  flavour: MariaDB
                  version: "10.11"
                  image: %s
                  storage: {size: %s}
                %s"""
                    .formatted(
                        name,
                        namespace,
                        replicas,
                        RealNodeSamples.MARIADB_IMAGE,
                        storage,
                        extraSpec),
                GenericKubernetesResource.class))
        .create();
    return this;
  }

  /** Waits until the cluster is Ready with {@code replicas} ready Pods; explains a timeout. */
  public void awaitReady(int replicas, Duration limit) {
    try {
      await("MySQLCluster " + name + " Ready with " + replicas + " MariaDB containers")
          .atMost(limit)
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> ready(replicas));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      explain();
      throw e;
    }
  }

  /** True when the cluster is Ready for its generation and {@code replicas} Pods are ready. */
  boolean ready(int replicas) {
    return Resources.ready(resource()) && readyPods() == replicas;
  }

  /** Prints the cluster's status and the MySQL operator's Pods, for a failure's reader. */
  public void explain() {
    System.err.println("[e2e] MySQLCluster " + name + " status: " + status());
    // Where the primary Service sends connections: the role labels and the endpoints they make.
    members()
        .forEach(
            p ->
                System.err.println(
                    "[e2e] "
                        + p.getMetadata().getName()
                        + " labels "
                        + p.getMetadata().getLabels()));
    System.err.println(
        "[e2e] "
            + primaryHost()
            + " endpoints: "
            + admin.endpoints().inNamespace(namespace).withName(primaryHost()).get());
    platform.pods("mysql").forEach(platform::describe);
    members().forEach(this::printServerLogs);
  }

  private List<Pod> members() {
    return admin
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", name)
        .list()
        .getItems();
  }

  /**
   * The last lines of a member's MariaDB log, and of its previous container's when it restarted:
   * crash recovery and replication errors are told there, nowhere else.
   */
  private void printServerLogs(Pod member) {
    String pod = member.getMetadata().getName();
    for (boolean previous : new boolean[] {true, false}) {
      try {
        var container = admin.pods().inNamespace(namespace).withName(pod).inContainer("mysql");
        String log =
            previous
                ? container.terminated().tailingLines(40).getLog()
                : container.tailingLines(40).getLog();
        System.err.println(
            "[e2e] ----- " + pod + (previous ? " (previous container)" : "") + " log -----");
        System.err.println(log);
      } catch (RuntimeException e) {
        System.err.println(
            "[e2e] no " + (previous ? "previous " : "") + "log of " + pod + ": " + e.getMessage());
      }
    }
  }

  /** Starts the client Pod with the cluster's root password in $ROOT_PASSWORD. */
  public void startClient() {
    RealNodePods.run(
        admin,
        namespace,
        RealNodePods.shell(
            client,
            platform.cluster().node().workloadsImage(),
            Map.of("ROOT_PASSWORD", rootPassword())));
  }

  GenericKubernetesResource resource() {
    return Resources.get(admin, API, "MySQLCluster", namespace, name);
  }

  @SuppressWarnings("unchecked")
  public Map<String, Object> status() {
    Object status = resource().getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> ? (Map<String, Object>) status : Map.of();
  }

  /** The Ready condition as a person reads it: "False/PrimaryUnreachable: the primary ...". */
  @SuppressWarnings("unchecked")
  public String readyCondition() {
    Object conditions = status().get("conditions");
    if (conditions instanceof List<?> list) {
      for (Object o : list) {
        if (o instanceof Map<?, ?> c && "Ready".equals(c.get("type"))) {
          return c.get("status") + "/" + c.get("reason") + ": " + c.get("message");
        }
      }
    }
    return "(no Ready condition)";
  }

  /** The Pod the status names as primary ("null" before there is one). */
  public String primary() {
    return String.valueOf(status().get("primary"));
  }

  long readyPods() {
    return admin
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", name)
        .list()
        .getItems()
        .stream()
        .filter(RealNodePods::ready)
        .count();
  }

  public String rootPassword() {
    return new String(
        Base64.getDecoder()
            .decode(
                admin
                    .secrets()
                    .inNamespace(namespace)
                    .withName(name + "-root")
                    .get()
                    .getData()
                    .get("password")),
        StandardCharsets.UTF_8);
  }

  /** The id of {@code pod}'s MariaDB container for the node's containerd (no scheme prefix). */
  public String containerId(String pod) {
    Pod p = admin.pods().inNamespace(namespace).withName(pod).get();
    return p.getStatus()
        .getContainerStatuses()
        .get(0)
        .getContainerID()
        .replaceFirst("^containerd://", "");
  }

  /** The node's directory behind {@code pod}'s data volume (the host-path provisioner's). */
  Path dataDirectory(String pod) {
    return Path.of(volume(pod).getSpec().getHostPath().getPath());
  }

  /** The PersistentVolume bound to {@code pod}'s data claim now. */
  public PersistentVolume volume(String pod) {
    var claim = admin.persistentVolumeClaims().inNamespace(namespace).withName("data-" + pod).get();
    return admin.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
  }

  /**
   * Overwrites the header of {@code pod}'s InnoDB redo log on the node, as a disk fault would: the
   * running server never rereads it, and its next start cannot finish crash recovery.
   */
  public void corruptRedoLog(String pod) throws IOException {
    Path log = dataDirectory(pod).resolve("ib_logfile0");
    byte[] garbage = new byte[512];
    new Random(42).nextBytes(garbage);
    try (var f = FileChannel.open(log, StandardOpenOption.WRITE)) {
      f.write(ByteBuffer.wrap(garbage), 0);
      f.force(true);
    }
  }

  /** Asks the operator to rebuild {@code pod} (the cluster's rebuild annotation). */
  public void requestRebuild(String pod) {
    admin
        .genericKubernetesResources(API, "MySQLCluster")
        .inNamespace(namespace)
        .withName(name)
        .edit(
            r -> {
              Map<String, String> annotations = new HashMap<>();
              if (r.getMetadata().getAnnotations() != null) {
                annotations.putAll(r.getMetadata().getAnnotations());
              }
              annotations.put("mysql.bosun.dev/rebuild", pod);
              r.getMetadata().setAnnotations(annotations);
              return r;
            });
  }

  /** The last rebuild the status records, in a sentence ("no rebuild" when none). */
  public String rebuildSummary() {
    Object rebuild = status().get("rebuild");
    if (!(rebuild instanceof Map<?, ?> r)) {
      return "no rebuild";
    }
    return "rebuild of "
        + r.get("member")
        + " from "
        + r.get("source")
        + " ("
        + r.get("reason")
        + ", "
        + r.get("phase")
        + (r.get("errantTransactions") == null
            ? ""
            : ", errant transactions kept at " + r.get("errantTransactions"))
        + ")";
  }

  /** The primary Service's host name. */
  String primaryHost() {
    return name + "-primary";
  }

  /** Runs SQL through the primary Service from the client Pod; the output without headers. */
  public String sql(String statements) {
    return sql(primaryHost(), statements);
  }

  /** Runs SQL on {@code host} from the client Pod; the output without headers. */
  public String sql(String host, String statements) {
    return PodExec.sh(
            admin,
            namespace,
            client,
            Duration.ofSeconds(30),
            "mariadb -h "
                + host
                + " -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=3 -N -e '"
                + statements
                + "'")
        .stdout();
  }

  /** The rows of {@link AckedWriter#TABLE} the primary has, or -1 when it does not answer. */
  public long count() {
    String out = sql("SELECT COUNT(*) FROM " + AckedWriter.TABLE).trim();
    return out.matches("\\d+") ? Long.parseLong(out) : -1;
  }

  /** The ids of {@link AckedWriter#TABLE} on the primary. */
  public Set<Integer> storedIds() {
    Set<Integer> stored = new HashSet<>();
    Matcher m = Pattern.compile("(?m)^(\\d+)$").matcher(sql("SELECT id FROM " + AckedWriter.TABLE));
    while (m.find()) {
      stored.add(Integer.parseInt(m.group(1)));
    }
    return stored;
  }

  /** A writer of numbered rows through the primary Service, in the client Pod. */
  public AckedWriter writer() {
    return new AckedWriter(admin, namespace, client, primaryHost());
  }
}
