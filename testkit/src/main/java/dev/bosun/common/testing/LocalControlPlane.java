package dev.bosun.common.testing;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * A real Kubernetes control plane on 127.0.0.1: Debian's etcd, kube-apiserver and
 * kube-controller-manager v1.20.2 (built once from Debian's source package by {@code
 * hack/install-control-plane.sh} and cached). RBAC authorization and token authentication are on,
 * so the API server enforces what a real one does. One instance per JVM is shared through {@link
 * #shared()}; each process dies with the JVM, even on kill -9, through a small watchdog shell.
 */
public final class LocalControlPlane implements AutoCloseable {

  public static final String VERSION = "v1.20.2";
  private static LocalControlPlane shared;

  private final Path workDir;
  private final Path kubeconfig;
  private final int apiPort;
  private final String adminToken;
  private final List<LocalProcess> processes = new ArrayList<>();
  private final boolean keepWorkDir;
  private final boolean forRealNode;

  private LocalControlPlane(Path workDir, boolean keepWorkDir, boolean forRealNode)
      throws IOException {
    this.workDir = workDir;
    this.keepWorkDir = keepWorkDir;
    this.forRealNode = forRealNode;
    this.kubeconfig = workDir.resolve("kubeconfig");
    this.apiPort = LocalProcess.freePort("127.0.0.1");
    this.adminToken = HexFormat.of().formatHex(randomBytes(16));
  }

  /** The control plane of this JVM, started on first use and stopped when the JVM exits. */
  public static synchronized LocalControlPlane shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("bosun-control-plane"), false);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      LocalControlPlane plane = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(plane::close, "control-plane-stop"));
    }
    return shared;
  }

  /**
   * Starts etcd, kube-apiserver and kube-controller-manager with their state in {@code workDir},
   * installing and building the binaries first when they are missing (progress goes to stderr).
   */
  public static LocalControlPlane start(Path workDir, boolean keepWorkDir) throws IOException {
    return start(workDir, keepWorkDir, false);
  }

  /**
   * A control plane that a {@link LocalNode} can join: Pods reach the API server at the pod
   * network's gateway ({@link LocalNode#POD_GATEWAY}, behind the {@code kubernetes} Service), and
   * the ServiceAccount admission plugin mounts their tokens. The node's bridge is created first,
   * because the API server advertises the bridge's address.
   */
  public static LocalControlPlane startForRealNode(Path workDir, boolean keepWorkDir)
      throws IOException {
    LocalNode.createBridge();
    return start(workDir, keepWorkDir, true);
  }

  private static LocalControlPlane start(Path workDir, boolean keepWorkDir, boolean forRealNode)
      throws IOException {
    Path bin = ensureBinaries();
    LocalControlPlane plane = new LocalControlPlane(workDir, keepWorkDir, forRealNode);
    try {
      plane.boot(bin);
    } catch (RuntimeException | IOException e) {
      plane.printLogTails(40, System.err::println);
      plane.close();
      throw e;
    }
    return plane;
  }

  /**
   * Runs the install script (a no-op when everything is cached) and returns the binaries' folder.
   */
  static Path ensureBinaries() {
    return InstallScript.run("install-control-plane.sh");
  }

  /**
   * The repository's root: the {@code bosun.repo.root} property, or the nearest parent with hack/.
   */
  public static Path repoRoot() {
    String configured = System.getProperty("bosun.repo.root");
    if (configured != null && Files.exists(Path.of(configured, "hack/install-control-plane.sh"))) {
      return Path.of(configured);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("hack/install-control-plane.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find hack/install-control-plane.sh above " + Path.of("").toAbsolutePath());
  }

  private void boot(Path bin) throws IOException {
    Instant t0 = Instant.now();
    Files.createDirectories(workDir.resolve("logs"));
    Files.createDirectories(workDir.resolve("certs"));
    Files.writeString(workDir.resolve("tokens.csv"), adminToken + ",admin,admin,system:masters\n");
    writeServiceAccountKeys();
    int etcdPort = startEtcd();
    startApiServer(bin, etcdPort);
    writeKubeconfig();
    startControllerManager(bin);
    System.err.printf(
        "[control-plane] Kubernetes %s ready on https://127.0.0.1:%d in %d ms (kubeconfig %s)%n",
        VERSION, apiPort, Duration.between(t0, Instant.now()).toMillis(), kubeconfig);
  }

  /** Starts etcd on two free loopback ports; returns its client port. */
  private int startEtcd() {
    int etcdPort = LocalProcess.freePort("127.0.0.1");
    int peerPort = LocalProcess.freePort("127.0.0.1");
    spawn(
        "etcd",
        List.of(
            "/usr/bin/etcd",
            "--name=default",
            "--data-dir=" + workDir.resolve("etcd"),
            "--listen-client-urls=http://127.0.0.1:" + etcdPort,
            "--advertise-client-urls=http://127.0.0.1:" + etcdPort,
            "--listen-peer-urls=http://127.0.0.1:" + peerPort,
            "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
            "--initial-cluster=default=http://127.0.0.1:" + peerPort,
            "--quota-backend-bytes=4294967296"));
    return etcdPort;
  }

  private void startApiServer(Path bin, int etcdPort) {
    // For a real node the API server listens on the pod network's gateway too (Pods reach it
    // through the kubernetes Service), and mounts each Pod's ServiceAccount token; without Pods
    // it stays on loopback and needs no ServiceAccount admission.
    String bind = forRealNode ? "0.0.0.0" : "127.0.0.1";
    String advertise = forRealNode ? LocalNode.POD_GATEWAY : "127.0.0.1";
    String admission =
        forRealNode
            ? "--enable-admission-plugins=ServiceAccount"
            : "--disable-admission-plugins=ServiceAccount";
    spawn(
        "kube-apiserver",
        List.of(
            bin.resolve("kube-apiserver").toString(),
            "--etcd-servers=http://127.0.0.1:" + etcdPort,
            "--bind-address=" + bind,
            "--advertise-address=" + advertise,
            "--secure-port=" + apiPort,
            "--insecure-port=0",
            "--cert-dir=" + workDir.resolve("certs"),
            "--token-auth-file=" + workDir.resolve("tokens.csv"),
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            "--service-account-key-file=" + workDir.resolve("sa.pub"),
            "--service-account-signing-key-file=" + workDir.resolve("sa.key"),
            "--service-cluster-ip-range=10.0.0.0/16",
            admission,
            "--allow-privileged=true",
            "--max-requests-inflight=1000",
            "--max-mutating-requests-inflight=500"));
  }

  /** Starts the controller manager once the API server serves, and waits until it works. */
  private void startControllerManager(Path bin) {
    try (KubernetesClient client = adminClient()) {
      waitFor(
          "kube-apiserver to serve",
          Duration.ofSeconds(120),
          () -> client.namespaces().withName("default").get() != null);
      spawn(
          "kube-controller-manager",
          List.of(
              bin.resolve("kube-controller-manager").toString(),
              "--kubeconfig=" + kubeconfig,
              "--leader-elect=false",
              "--port=0",
              "--secure-port=0",
              "--service-account-private-key-file=" + workDir.resolve("sa.key"),
              "--root-ca-file=" + workDir.resolve("certs/apiserver.crt"),
              "--use-service-account-credentials=false",
              "--concurrent-deployment-syncs=10",
              "--concurrent-replicaset-syncs=10",
              "--kube-api-qps=500",
              "--kube-api-burst=1000",
              "--controllers=*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-route,-service"));
      // The default ServiceAccount appears once the controller manager works.
      waitFor(
          "kube-controller-manager to work",
          Duration.ofSeconds(120),
          () -> client.serviceAccounts().inNamespace("default").withName("default").get() != null);
    }
  }

  private void spawn(String name, List<String> command) {
    processes.add(LocalProcess.start(name, command, workDir.resolve("logs/" + name + ".log")));
  }

  private void writeServiceAccountKeys() throws IOException {
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
      gen.initialize(2048);
      KeyPair pair = gen.generateKeyPair();
      Files.writeString(
          workDir.resolve("sa.key"), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
      Files.writeString(
          workDir.resolve("sa.pub"), pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private void writeKubeconfig() throws IOException {
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: bosun-local
          cluster:
            server: %s
            insecure-skip-tls-verify: true
        users:
        - name: admin
          user:
            token: %s
        contexts:
        - name: bosun-local
          context: {cluster: bosun-local, user: admin, namespace: default}
        current-context: bosun-local
        """
            .formatted(serverUrl(), adminToken));
  }

  private void waitFor(String what, Duration timeout, java.util.function.BooleanSupplier ready) {
    LocalProcesses.await("control plane", processes, what, timeout, Duration.ofMillis(100), ready);
  }

  /** True when started for a {@link LocalNode}. */
  public boolean forRealNode() {
    return forRealNode;
  }

  /** The binaries' folder (kubelet, kube-proxy and kube-scheduler are built beside the rest). */
  public static Path binaries() {
    return ensureBinaries();
  }

  /** https://127.0.0.1:port of the API server. */
  public String serverUrl() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** A kubeconfig file for kubectl and for operators run by hand. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The folder holding the logs, etcd data and kubeconfig. */
  public Path workDir() {
    return workDir;
  }

  /** The client configuration of the cluster admin (system:masters). */
  public Config adminConfig() {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      config.setRequestTimeout(30_000);
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new cluster-admin client; the caller closes it. */
  public KubernetesClient adminClient() {
    return new KubernetesClientBuilder().withConfig(adminConfig()).build();
  }

  /** A new cluster-admin client whose HTTP requests also pass through {@code customizer}. */
  public KubernetesClient adminClient(Consumer<HttpClient.Builder> customizer) {
    return new KubernetesClientBuilder()
        .withConfig(adminConfig())
        .withHttpClientBuilderConsumer(customizer)
        .build();
  }

  /** A client authenticated with a bearer token (a ServiceAccount's, to test RBAC). */
  public KubernetesClient clientWithToken(String token) {
    return clientWithToken(token, b -> {});
  }

  /** A bearer-token client whose HTTP requests also pass through {@code customizer}. */
  public KubernetesClient clientWithToken(String token, Consumer<HttpClient.Builder> customizer) {
    Config config = adminConfig();
    config.setOauthToken(token);
    config.setAutoOAuthToken(token);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientBuilderConsumer(customizer)
        .build();
  }

  /** Prints the last lines of each control plane log: what a failed test needs to be understood. */
  public void printLogTails(int lines, Consumer<String> out) {
    LocalProcesses.printTails("control plane", workDir.resolve("logs"), lines, out);
  }

  @Override
  public synchronized void close() {
    // Reverse order: the controller manager first, etcd last.
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop();
    }
    processes.clear();
    if (!keepWorkDir) {
      ScratchDirectories.deleteQuietly(workDir);
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }
}
