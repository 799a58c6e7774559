package dev.bosun.etcd.testing;

import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.LocalContainers;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.ScratchDirectories;
import dev.bosun.etcd.EtcdOperator;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the etcd member Pods of one namespace as real etcd processes on this machine: each Pod's own
 * command and arguments (the operator gave them loopback addresses through its addressing seam),
 * with the data directory mapped to a directory per PersistentVolumeClaim, so a Pod re-created on
 * the same claim comes back with its data, and a deleted claim takes its data with it. A deleted
 * Pod's process gets SIGTERM. The {@code KubeletSimulator} binds the Pods and marks them Ready;
 * this plays only the container runtime.
 */
public final class ProcessKubelet implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessKubelet.class);

  private final KubernetesClient client;
  private final String namespace;
  private final Path root;
  private final LocalContainers containers;
  private final Map<String, LocalProcess> processes = new ConcurrentHashMap<>();
  private final Map<String, String> podUids = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> stopping = new ConcurrentHashMap<>();
  private final java.util.Set<String> heldBack = ConcurrentHashMap.newKeySet();
  private volatile java.util.function.BiFunction<String, List<String>, List<String>> wrap =
      (member, command) -> command;
  // One thread per member name, as a kubelet has a worker per Pod: a Pod's deletion (and its
  // volume's) is handled before the start of its replacement, and one member's init container
  // (a restore waiting for its snapshot) never holds up another member's start, kill or restart.
  private final Map<String, ExecutorService> workers = new ConcurrentHashMap<>();
  private volatile boolean closed;
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<PersistentVolumeClaim> claims;

  public ProcessKubelet(KubernetesClient client, String namespace, Path root) {
    this.client = client;
    this.namespace = namespace;
    this.root = root;
    this.containers =
        new LocalContainers(
            client, root, Map.of("etcd", "/usr/bin/etcd", "etcdctl", "/usr/bin/etcdctl"));
  }

  public ProcessKubelet start() {
    pods =
        client
            .pods()
            .inNamespace(namespace)
            .withLabel(EtcdOperator.MEMBER_LABEL)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    worker(pod.getMetadata().getName()).execute(() -> sync(pod));
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    worker(pod.getMetadata().getName()).execute(() -> sync(pod));
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    worker(pod.getMetadata().getName())
                        .execute(
                            () -> stop(pod.getMetadata().getName(), pod.getMetadata().getUid()));
                  }
                });
    claims =
        client
            .persistentVolumeClaims()
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(PersistentVolumeClaim c) {}

                  @Override
                  public void onUpdate(PersistentVolumeClaim o, PersistentVolumeClaim c) {}

                  @Override
                  public void onDelete(PersistentVolumeClaim c, boolean unknown) {
                    worker(memberOf(c)).execute(() -> wipe(c.getMetadata().getName()));
                  }
                });
    return this;
  }

  /** The thread of one member's Pods and volume. */
  private ExecutorService worker(String member) {
    return workers.computeIfAbsent(
        member,
        m ->
            Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "process-kubelet-" + m);
                  t.setDaemon(true);
                  return t;
                }));
  }

  /** The member a volume belongs to: its member label, else its own name. */
  private static String memberOf(PersistentVolumeClaim c) {
    var labels = c.getMetadata().getLabels();
    String member = labels == null ? null : labels.get(EtcdOperator.MEMBER_LABEL);
    return member == null ? c.getMetadata().getName() : member;
  }

  private void sync(Pod pod) {
    String name = pod.getMetadata().getName();
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      stop(name, pod.getMetadata().getUid());
      return;
    }
    if (pod.getMetadata().getUid().equals(podUids.get(name))) {
      return;
    }
    if (heldBack.contains(name)) {
      // Like a Pod that never reaches a node: nothing runs.
      LOG.info("holding back Pod {}/{}: its etcd does not start", namespace, name);
      podUids.put(name, pod.getMetadata().getUid());
      return;
    }
    LocalProcess old = processes.remove(name);
    if (old != null) {
      old.stop();
    }
    CompletableFuture<Void> previous = stopping.remove(name);
    if (previous != null) {
      previous.join();
    }
    podUids.put(name, pod.getMetadata().getUid());
    startPod(pod, 0);
  }

  /**
   * Runs the Pod's init containers, then its etcd. A failed init container is run again after a
   * back-off (10 s, doubling up to 40 s), as a kubelet restarts it, for as long as the same Pod
   * exists and nothing runs for it.
   */
  private void startPod(Pod pod, int failures) {
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    Path logs = root.resolve("logs");
    for (Container init : pod.getSpec().getInitContainers()) {
      if (!runToCompletion(
          pod, init, logs.resolve(name + "-" + uid + "-" + init.getName() + ".log"))) {
        long backOff = Math.min(40, 10L << Math.min(failures, 2));
        LOG.warn(
            "init container {} of Pod {}/{} failed: running it again in {} s",
            init.getName(),
            namespace,
            name,
            backOff);
        CompletableFuture.delayedExecutor(backOff, TimeUnit.SECONDS)
            .execute(
                () -> {
                  if (!closed) {
                    worker(name).execute(() -> retry(name, uid, failures + 1));
                  }
                });
        return;
      }
    }
    startEtcd(pod);
  }

  /** Starts the Pod again after a failed init container, unless it is gone, replaced or runs. */
  private void retry(String name, String uid, int failures) {
    Pod pod = pods == null ? null : pods.getStore().getByKey(namespace + "/" + name);
    if (pod == null
        || pod.getMetadata().getDeletionTimestamp() != null
        || !uid.equals(pod.getMetadata().getUid())
        || !uid.equals(podUids.get(name))
        || processes.containsKey(name)) {
      return;
    }
    startPod(pod, failures);
  }

  private void startEtcd(Pod pod) {
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    Container etcd = pod.getSpec().getContainers().get(0);
    LocalProcess process =
        LocalProcess.start(
            "etcd-" + name,
            wrap.apply(name, command(pod, etcd)),
            root.resolve("logs").resolve(name + "-" + uid + "-" + System.nanoTime() + ".log"),
            environment(pod, etcd));
    processes.put(name, process);
    LOG.info("started {} for Pod {}/{}", process, namespace, name);
  }

  /**
   * Kills a member's etcd (SIGKILL) and reports its container terminated in the Pod's status, as a
   * kubelet does for a container that died: Kubernetes' own account that the member is down. (The
   * Ready flag stays as the shared kubelet simulator wrote it: it rewrites any status that says
   * otherwise.) The Pod stays; {@link #restartContainer} brings the member back on its data.
   */
  public void killContainer(String member) {
    onWorker(
        member,
        () -> {
          LocalProcess p = processes.remove(member);
          if (p != null) {
            p.kill();
          }
        });
    reportEtcd(member, false);
  }

  /**
   * Starts a killed member's etcd again on its data and reports its container running; nothing when
   * its Pod was replaced or deleted meanwhile, or a container already runs for it: one etcd per
   * Pod, never a second one the kubelet does not track on the same address.
   */
  public void restartContainer(String member) {
    Pod pod = client.pods().inNamespace(namespace).withName(member).get();
    boolean started =
        onWorker(
            member,
            () -> {
              if (pod == null
                  || pod.getMetadata().getDeletionTimestamp() != null
                  || !pod.getMetadata().getUid().equals(podUids.get(member))
                  || processes.containsKey(member)) {
                LOG.info("not restarting {}: its Pod was replaced or its etcd runs", member);
                return false;
              }
              startEtcd(pod);
              return true;
            });
    if (started) {
      reportEtcd(member, true);
    }
  }

  /** Runs {@code action} on the member's thread, after its Pod events before it. */
  private <T> T onWorker(String member, java.util.concurrent.Callable<T> action) {
    try {
      return worker(member).submit(action).get(2, java.util.concurrent.TimeUnit.MINUTES);
    } catch (Exception e) {
      throw new IllegalStateException("the process kubelet did not act: " + e.getMessage(), e);
    }
  }

  private void onWorker(String member, Runnable action) {
    onWorker(
        member,
        () -> {
          action.run();
          return null;
        });
  }

  private void reportEtcd(String member, boolean running) {
    String now =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    Edits.editStatus(
        client.pods().inNamespace(namespace).withName(member),
        pod -> {
          for (var c : pod.getStatus().getContainerStatuses()) {
            if (!"etcd".equals(c.getName())) {
              continue;
            }
            var state = new io.fabric8.kubernetes.api.model.ContainerState();
            if (running) {
              state.setRunning(
                  new io.fabric8.kubernetes.api.model.ContainerStateRunningBuilder()
                      .withStartedAt(now)
                      .build());
              c.setRestartCount(c.getRestartCount() == null ? 1 : c.getRestartCount() + 1);
            } else {
              state.setTerminated(
                  new io.fabric8.kubernetes.api.model.ContainerStateTerminatedBuilder()
                      .withExitCode(137)
                      .withReason("Error")
                      .withFinishedAt(now)
                      .build());
            }
            c.setState(state);
          }
          return pod;
        });
  }

  /** The container's command as a local process ({@link LocalContainers}). */
  private List<String> command(Pod pod, Container container) {
    return containers.command(pod, container);
  }

  private Map<String, String> environment(Pod pod, Container container) {
    return containers.environment(pod, container);
  }

  private boolean runToCompletion(Pod pod, Container container, Path log) {
    return containers.run(pod, container, log, 120) == 0;
  }

  private void stop(String name, String uid) {
    if (!uid.equals(podUids.get(name))) {
      return;
    }
    podUids.remove(name);
    LocalProcess p = processes.remove(name);
    if (p != null) {
      // Stopped in the background, as a kubelet stops many Pods at once: etcd can take its
      // whole grace period to stop without quorum. A new Pod of that name waits for it.
      stopping.put(
          name,
          CompletableFuture.runAsync(
              () -> {
                p.stop();
                LOG.info("stopped {} of deleted Pod {}/{}", p, namespace, name);
              }));
    }
  }

  private void wipe(String claim) {
    ScratchDirectories.delete(containers.claim(claim));
  }

  /**
   * Runs the member Pod's readiness probe as a kubelet would: its exec command with this machine's
   * binaries and the Pod's mounts, or its HTTP GET against the member's advertised client address
   * (where a kubelet would use the Pod IP). True when the probe passes.
   */
  public boolean probeReady(String member) {
    Pod pod = client.pods().inNamespace(namespace).withName(member).get();
    Container etcd = pod.getSpec().getContainers().get(0);
    var probe = etcd.getReadinessProbe();
    try {
      if (probe.getExec() != null) {
        Container exec =
            new io.fabric8.kubernetes.api.model.ContainerBuilder(etcd)
                .withCommand(probe.getExec().getCommand())
                .withArgs(List.of())
                .build();
        Process p =
            new ProcessBuilder(command(pod, exec))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(probe.getTimeoutSeconds(), TimeUnit.SECONDS)) {
          p.destroyForcibly();
          return false;
        }
        return p.exitValue() == 0;
      }
      java.net.URI advertised =
          etcd.getArgs().stream()
              .filter(a -> a.startsWith("--advertise-client-urls="))
              .map(a -> java.net.URI.create(a.substring(a.indexOf('=') + 1)))
              .findFirst()
              .orElseThrow();
      var get = probe.getHttpGet();
      java.net.URI uri =
          java.net.URI.create(
              get.getScheme().toLowerCase(java.util.Locale.ROOT)
                  + "://"
                  + advertised.getHost()
                  + ":"
                  + advertised.getPort()
                  + get.getPath());
      var response =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(uri)
                      .timeout(java.time.Duration.ofSeconds(probe.getTimeoutSeconds()))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.discarding());
      return response.statusCode() >= 200 && response.statusCode() < 400;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Runs each member's etcd through {@code wrap} (member name, command): drills start it inside the
   * member's network namespace. Init containers run unwrapped (they fetch from stores on this
   * machine's loopback).
   */
  public ProcessKubelet wrapping(
      java.util.function.BiFunction<String, List<String>, List<String>> wrap) {
    this.wrap = wrap;
    return this;
  }

  /** The Pods of this member never get a process, as if they could not be scheduled. */
  public void holdBack(String member) {
    heldBack.add(member);
  }

  /** The process of a member Pod, if one runs. */
  public Optional<LocalProcess> process(String member) {
    return Optional.ofNullable(processes.get(member));
  }

  /** What the init container {@code container} of Pod {@code pod} printed, every run of it. */
  public String initContainerLog(String pod, String container) {
    StringBuilder all = new StringBuilder();
    try (var logs = Files.list(root.resolve("logs"))) {
      for (Path log :
          logs.filter(
                  f -> {
                    String name = f.getFileName().toString();
                    return name.startsWith(pod + "-") && name.endsWith("-" + container + ".log");
                  })
              .sorted()
              .toList()) {
        all.append(Files.readString(log));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all.toString();
  }

  /** True when the member's data directory exists (its volume holds data). */
  public boolean hasData(String claim) {
    return Files.isDirectory(root.resolve("volumes").resolve(claim).resolve("data"));
  }

  @Override
  public void close() {
    closed = true;
    if (pods != null) {
      pods.close();
    }
    if (claims != null) {
      claims.close();
    }
    workers.values().forEach(ExecutorService::shutdownNow);
    processes.values().forEach(LocalProcess::kill);
    stopping.values().forEach(CompletableFuture::join);
    processes.clear();
    // Volumes and Pod directories go with the node; the processes' logs stay for a post-mortem.
    ScratchDirectories.deleteQuietly(root.resolve("volumes"));
    ScratchDirectories.deleteQuietly(root.resolve("pods"));
  }
}
