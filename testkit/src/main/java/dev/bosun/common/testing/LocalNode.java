package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real Kubernetes node on this machine, joined to a {@link LocalControlPlane} started with {@link
 * LocalControlPlane#startForRealNode}: containerd + runc (Debian), a CNI bridge, kubelet,
 * kube-proxy (iptables) and kube-scheduler v1.20.2 from the control plane's build, cluster DNS
 * ({@link ClusterDns}) and a default StorageClass ({@link HostPathProvisioner}). Pods run as real
 * containers from images imported without a registry ({@code hack/install-node.sh}).
 *
 * <p>Pod (10.244.0.0/24) and Service (10.0.0.0/16) addresses exist only on this machine: on the
 * bridge, in the pods' own network namespaces and in kube-proxy's rules; nothing is routed off the
 * machine. Everything the node sets up (processes, containers, network namespaces, the bridge,
 * iptables rules, mounts, the hosts-file line) is undone by {@link #close()}, and by a watchdog
 * when the JVM dies without closing it. One node runs on a machine at a time.
 */
public final class LocalNode implements AutoCloseable {

  public static final String NAME = "bosun-node";
  public static final String BRIDGE = "cni0";
  public static final String POD_GATEWAY = "10.244.0.1";
  public static final String POD_SUBNET = "10.244.0.0/24";
  public static final String CLUSTER_DNS = "10.0.0.10";
  public static final String STORAGE_CLASS = HostPathProvisioner.STORAGE_CLASS;
  private static final Path OWNER = Path.of("/run/bosun-node/owner");

  private final LocalControlPlane plane;
  private final Path workDir;
  private final Path socket;
  private final Map<String, String> images = new LinkedHashMap<>();
  private final List<LocalProcess> processes = new ArrayList<>();
  private Process watchdog;
  private HostPathProvisioner provisioner;
  private ClusterDns dns;
  private KubernetesClient client;

  private LocalNode(LocalControlPlane plane, Path workDir) {
    this.plane = plane;
    this.workDir = workDir;
    this.socket = workDir.resolve("containerd/containerd.sock");
  }

  /**
   * Joins a node to {@code plane}, with its state in {@code workDir}; installs what is missing
   * first (packages, node binaries, images; progress on stderr) and returns once the node is Ready,
   * cluster DNS answers and the default StorageClass exists.
   */
  public static LocalNode start(LocalControlPlane plane, Path workDir) {
    if (!plane.forRealNode()) {
      throw new IllegalArgumentException("start the control plane with startForRealNode()");
    }
    LocalNode node = new LocalNode(plane, workDir);
    try {
      node.boot();
    } catch (RuntimeException | IOException e) {
      node.printLogTails(40, System.err::println);
      node.close();
      if (e instanceof IOException io) {
        throw new UncheckedIOException(io);
      }
      throw (RuntimeException) e;
    }
    return node;
  }

  /** The pod network's bridge with the gateway address; the API server advertises that address. */
  static void createBridge() {
    reclaimStaleNode();
    Shell.run(
        "ip link show " + BRIDGE + " >/dev/null 2>&1 || ip link add " + BRIDGE + " type bridge");
    Shell.run(
        "ip -4 addr show dev "
            + BRIDGE
            + " | grep -q ' "
            + POD_GATEWAY
            + "/' || ip addr add "
            + POD_GATEWAY
            + "/24 dev "
            + BRIDGE);
    Shell.run("ip link set " + BRIDGE + " up");
  }

  private void boot() throws IOException {
    Instant t0 = Instant.now();
    claimMachine();
    Path bin = LocalControlPlane.binaries();
    Path imageDir = InstallScript.run("install-node.sh");
    for (Path dir :
        List.of("logs", "containerd", "cni", "kubelet", "hostpath").stream()
            .map(workDir::resolve)
            .toList()) {
      Files.createDirectories(dir);
    }
    writeTeardownScript();
    startWatchdog();
    prepareHost();
    writeConfigs();
    startContainerd(imageDir);
    Path kubeconfig = plane.kubeconfig();
    startScheduler(bin, kubeconfig);
    startKubelet(bin, kubeconfig);
    startProxy(bin, kubeconfig);
    client = plane.adminClient();
    waitFor("node " + NAME + " to be Ready", Duration.ofSeconds(180), this::nodeReady);
    liftNotReadyTaint();
    provisioner = new HostPathProvisioner(client, workDir.resolve("hostpath")).start();
    dns = new ClusterDns(client, workDir.resolve("dns"), images.get("workloads")).start();
    System.err.printf(
        "[node] %s Ready with cluster DNS and storage in %d ms (logs in %s)%n",
        NAME, Duration.between(t0, Instant.now()).toMillis(), workDir.resolve("logs"));
  }

  private static void prepareHost() {
    // The API server dials the kubelet by node name (logs, exec); the kubelet refuses a loopback
    // node IP, so the name resolves through the hosts file.
    Shell.run("grep -q ' " + NAME + "$' /etc/hosts || echo '127.0.0.1 " + NAME + "' >> /etc/hosts");
    Shell.run("sysctl -qw net.ipv4.ip_forward=1");
  }

  /** Starts containerd and imports the node's images (pause, workloads, jre) into it. */
  private void startContainerd(Path imageDir) throws IOException {
    spawn(
        "containerd",
        List.of("containerd", "--config", workDir.resolve("containerd.toml").toString()));
    waitFor("containerd's socket", Duration.ofSeconds(30), () -> Files.exists(socket));
    for (String image : List.of("pause", "workloads", "jre")) {
      images.put(image, importImage(imageDir.resolve(image + ".tar")));
    }
  }

  private void startScheduler(Path bin, Path kubeconfig) throws IOException {
    spawn(
        "kube-scheduler",
        List.of(
            bin.resolve("kube-scheduler").toString(),
            "--kubeconfig=" + kubeconfig,
            "--leader-elect=false",
            "--port=0",
            "--secure-port=0",
            "--bind-address=127.0.0.1"));
  }

  private void startKubelet(Path bin, Path kubeconfig) throws IOException {
    spawn(
        "kubelet",
        List.of(
            bin.resolve("kubelet").toString(),
            "--config=" + workDir.resolve("kubelet.yaml"),
            "--kubeconfig=" + kubeconfig,
            "--container-runtime=remote",
            "--container-runtime-endpoint=unix://" + socket,
            "--root-dir=" + workDir.resolve("kubelet"),
            "--hostname-override=" + NAME,
            "--pod-infra-container-image=" + images.get("pause")));
  }

  private void startProxy(Path bin, Path kubeconfig) throws IOException {
    spawn(
        "kube-proxy",
        List.of(
            bin.resolve("kube-proxy").toString(),
            "--kubeconfig=" + kubeconfig,
            "--hostname-override=" + NAME,
            "--cluster-cidr=10.244.0.0/16",
            "--proxy-mode=iptables",
            "--conntrack-max-per-core=0",
            "--metrics-bind-address=127.0.0.1:10249",
            "--healthz-bind-address=127.0.0.1:10256"));
  }

  /** The image references imported into the node: {@code pause}, {@code workloads}, {@code jre}. */
  public Map<String, String> images() {
    return Map.copyOf(images);
  }

  /** The reference of the Debian image holding MariaDB, etcd, busybox (httpd) and dnsmasq. */
  public String workloadsImage() {
    return images.get("workloads");
  }

  /** The reference of the JRE 17 base image the operator images are built on. */
  public String jreImage() {
    return images.get("jre");
  }

  /** The docker-archive of an image built by {@code hack/install-node.sh} ("jre", ...). */
  public static Path imageArchive(String name) {
    return InstallScript.run("install-node.sh").resolve(name + ".tar");
  }

  /**
   * Imports a docker-archive tarball (from {@code hack/image-archive.py} or Jib's buildTar) into
   * the node's containerd, where the kubelet finds it; returns the image's reference.
   */
  public String importImage(Path archive) {
    String out =
        Shell.run(
            "ctr --address "
                + socket
                + " -n k8s.io images import --no-unpack=false "
                + Shell.quote(archive.toString()));
    // "unpacking docker.io/bosun/x:tag (sha256:...)...done"
    for (String line : out.split("\n")) {
      if (line.startsWith("unpacking ")) {
        return line.substring("unpacking ".length()).replaceAll(" \\(sha256:.*$", "").trim();
      }
    }
    throw new IllegalStateException("ctr imported no image from " + archive + ": " + out);
  }

  /** Gives an imported image a second reference (a "new version" with the same content). */
  public String tagImage(String source, String target) {
    Shell.run(
        "ctr --address "
            + socket
            + " -n k8s.io images tag --force "
            + Shell.quote(source)
            + " "
            + Shell.quote(target));
    return target;
  }

  /**
   * SIGKILL to a container's process, as an OOM kill or a crash would: the kubelet restarts the
   * container in the same Pod, on the same volumes. {@code containerId} is the id in the Pod's
   * status without its {@code containerd://} prefix.
   */
  public void killContainer(String containerId) {
    signalContainer(containerId, "SIGKILL");
  }

  /**
   * Sends {@code signal} (SIGKILL, SIGSTOP, SIGCONT...) to a container's main process from the
   * host: inside the container that process is PID 1, which ignores SIGKILL and SIGSTOP sent from
   * its own PID namespace. Unlike {@link #pauseContainer}, SIGSTOP stops only that process, as a
   * stopped server would be.
   */
  public void signalContainer(String containerId, String signal) {
    Shell.run(
        "ctr --address "
            + socket
            + " -n k8s.io tasks kill -s "
            + Shell.quote(signal)
            + " "
            + Shell.quote(containerId));
  }

  /**
   * Freezes a container's processes (cgroup freezer), as a hung machine: its sockets stay open and
   * nothing answers, and the kubelet does not restart it.
   */
  public void pauseContainer(String containerId) {
    Shell.run("ctr --address " + socket + " -n k8s.io tasks pause " + Shell.quote(containerId));
  }

  /** Thaws a container {@link #pauseContainer} froze. */
  public void resumeContainer(String containerId) {
    Shell.run("ctr --address " + socket + " -n k8s.io tasks resume " + Shell.quote(containerId));
  }

  /** The node's containerd socket, for {@code ctr -n k8s.io}. */
  public Path containerdSocket() {
    return socket;
  }

  /** The folder holding the node's logs and state. */
  public Path workDir() {
    return workDir;
  }

  private void claimMachine() throws IOException {
    reclaimStaleNode();
    Files.createDirectories(OWNER.getParent());
    if (Files.exists(OWNER)) {
      throw new IllegalStateException(
          "another real node runs on this machine (" + Files.readString(OWNER).trim() + ")");
    }
    Files.writeString(OWNER, ProcessHandle.current().pid() + " " + workDir + "\n");
  }

  /** A node whose JVM died and whose watchdog did not finish is torn down before a new one. */
  private static void reclaimStaleNode() {
    try {
      if (!Files.exists(OWNER)) {
        return;
      }
      String[] owner = Files.readString(OWNER).trim().split(" ", 2);
      boolean alive =
          ProcessHandle.of(Long.parseLong(owner[0])).map(ProcessHandle::isAlive).orElse(false);
      if (!alive) {
        Path teardown = Path.of(owner[1], "teardown.sh");
        if (Files.exists(teardown)) {
          Shell.run("bash " + Shell.quote(teardown.toString()) + " >/dev/null 2>&1 || true");
        }
        // A JVM killed before its shutdown hook finished leaves gigabytes of images behind in the
        // temporary folder RealNodeCluster made: delete it once nothing is mounted below it.
        Path top = Path.of(owner[1]).getParent();
        if (top != null && top.getFileName().toString().startsWith("bosun-real-node")) {
          Shell.run(
              "grep -q ' " + top + "/' /proc/mounts || rm -rf " + Shell.quote(top.toString()));
        }
        Files.deleteIfExists(OWNER);
      }
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("cannot read " + OWNER + ": " + e.getMessage(), e);
    }
  }

  private void writeConfigs() throws IOException {
    Files.writeString(
        workDir.resolve("containerd.toml"),
        """
        version = 2
        root = "%1$s/containerd/root"
        state = "%1$s/containerd/state"
        [grpc]
          address = "%2$s"
        [plugins."io.containerd.grpc.v1.cri"]
          # Root here lacks CAP_SYS_RESOURCE: without this, runc cannot lower the sandbox's
          # oom_score_adj and every pod sandbox fails with "can't get final child's PID from pipe".
          restrict_oom_score_adj = true
          sandbox_image = "docker.io/bosun/pause:3.4"
          [plugins."io.containerd.grpc.v1.cri".cni]
            bin_dir = "/usr/lib/cni"
            conf_dir = "%1$s/cni"
        """
            .formatted(workDir, socket));
    // ipMasq off and routes only to the pod and service ranges: nothing leaves the machine.
    Files.writeString(
        workDir.resolve("cni/10-bridge.conflist"),
        """
        {"cniVersion":"0.4.0","name":"bosun","plugins":[
         {"type":"bridge","bridge":"%s","isGateway":true,"ipMasq":false,"hairpinMode":true,
          "ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"%s"}]],
                  "routes":[{"dst":"10.244.0.0/16"},{"dst":"10.0.0.0/16"}]}},
         {"type":"portmap","capabilities":{"portMappings":true}},{"type":"loopback"}]}
        """
            .formatted(BRIDGE, workDir.resolve("cni/ipam"), POD_SUBNET));
    Files.writeString(
        workDir.resolve("kubelet.yaml"),
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        # Listens on 127.0.0.1 only; the API server reaches it for logs and exec anonymously.
        authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        cgroupDriver: cgroupfs
        failSwapOn: false
        clusterDNS: ["%s"]
        clusterDomain: cluster.local
        address: 127.0.0.1
        readOnlyPort: 0
        healthzPort: 0
        evictionHard: {"memory.available": "100Mi", "nodefs.available": "1%%", "imagefs.available": "1%%"}
        imageGCHighThresholdPercent: 100
        serializeImagePulls: false
        """
            .formatted(CLUSTER_DNS));
  }

  /** The same steps as a clean close, as a script a watchdog can run after the JVM died. */
  private void writeTeardownScript() throws IOException {
    String script =
        """
        #!/usr/bin/env bash
        # Tears down the real node in %1$s (written by LocalNode; run by close() or its watchdog).
        W=%1$s
        SOCK=$W/containerd/containerd.sock
        for p in kubelet kube-proxy kube-scheduler; do
          [ -f "$W/pids/$p" ] && kill -9 "$(cat "$W/pids/$p")" 2>/dev/null
        done
        if [ -S "$SOCK" ]; then
          for t in $(ctr --address "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
            ctr --address "$SOCK" -n k8s.io tasks kill -s KILL "$t" >/dev/null 2>&1
          done
        fi
        # Whatever still runs in the pods' cgroups (containerd may be gone already).
        for i in 1 2 3; do
          for procs in $(find /sys/fs/cgroup/*/kubepods -name cgroup.procs 2>/dev/null); do
            xargs -r kill -9 < "$procs" 2>/dev/null
          done
          sleep 0.3
        done
        [ -f "$W/pids/containerd" ] && kill "$(cat "$W/pids/containerd")" 2>/dev/null
        sleep 0.5
        pkill -9 -f "containerd-shim.*$W" 2>/dev/null
        [ -f "$W/pids/containerd" ] && kill -9 "$(cat "$W/pids/containerd")" 2>/dev/null
        for n in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns del "$n"; done
        ip link del %2$s 2>/dev/null
        sed -i '/ %3$s$/d' /etc/hosts
        iptables-save | grep -v -E 'KUBE|CNI-' | iptables-restore
        grep " $W/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
        find /sys/fs/cgroup/*/kubepods -depth -type d -exec rmdir {} \\; 2>/dev/null
        rm -f %4$s
        true
        """
            .formatted(workDir, BRIDGE, NAME, OWNER);
    Path path = workDir.resolve("teardown.sh");
    Files.writeString(path, script);
    Files.createDirectories(workDir.resolve("pids"));
  }

  /**
   * Runs the teardown once this JVM is gone, unless close() ran it first (it then writes "closed").
   */
  private void startWatchdog() throws IOException {
    String script =
        "while kill -0 "
            + ProcessHandle.current().pid()
            + " 2>/dev/null && [ ! -f "
            + Shell.quote(workDir.resolve("closed").toString())
            + " ]; do sleep 1; done; [ -f "
            + Shell.quote(workDir.resolve("closed").toString())
            + " ] || bash "
            + Shell.quote(workDir.resolve("teardown.sh").toString());
    watchdog =
        new ProcessBuilder("setsid", "bash", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(workDir.resolve("logs/watchdog.log").toFile())
            .start();
  }

  private void spawn(String name, List<String> command) throws IOException {
    LocalProcess process =
        LocalProcess.start(name, command, workDir.resolve("logs/" + name + ".log"));
    processes.add(process);
    Files.writeString(workDir.resolve("pids/" + name), Long.toString(process.pid()));
  }

  private boolean nodeReady() {
    Node node = client.nodes().withName(NAME).get();
    return node != null
        && node.getStatus() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * The control plane runs no node-lifecycle controller, which would lift the not-ready taint the
   * kubelet registers with; the node is Ready, so lift it as that controller would.
   */
  private void liftNotReadyTaint() {
    // The kubelet writes the node's status meanwhile.
    Edits.edit(
        client.nodes().withName(NAME),
        n -> {
          List<Taint> taints = n.getSpec().getTaints();
          if (taints != null) {
            taints.removeIf(t -> t.getKey().startsWith("node.kubernetes.io/not-ready"));
          }
          return n;
        });
  }

  private void waitFor(String what, Duration timeout, java.util.function.BooleanSupplier ready) {
    LocalProcesses.await("node", processes, what, timeout, Duration.ofMillis(200), ready);
  }

  /** Prints the last lines of each node log. */
  public void printLogTails(int lines, java.util.function.Consumer<String> out) {
    LocalProcesses.printTails("node", workDir.resolve("logs"), lines, out);
  }

  @Override
  public synchronized void close() {
    if (dns != null) {
      dns.close();
    }
    if (provisioner != null) {
      provisioner.close();
    }
    if (client != null) {
      client.close();
    }
    Path teardown = workDir.resolve("teardown.sh");
    if (Files.exists(teardown)) {
      Shell.run("bash " + Shell.quote(teardown.toString()) + " >/dev/null 2>&1; true");
    }
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).kill();
    }
    processes.clear();
    try {
      Files.writeString(workDir.resolve("closed"), "closed\n");
      Files.deleteIfExists(OWNER);
    } catch (IOException e) {
      // the watchdog then runs the (idempotent) teardown once more
    }
    if (watchdog != null) {
      watchdog.destroy();
    }
  }
}
