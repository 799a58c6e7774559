package dev.bosun.etcd.testing;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.dependent.MemberPods;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
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
  private final Map<String, LocalProcess> processes = new ConcurrentHashMap<>();
  private final Map<String, String> podUids = new ConcurrentHashMap<>();
  // One thread: a Pod's deletion is always handled before the start of its replacement.
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "process-kubelet");
            t.setDaemon(true);
            return t;
          });
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<PersistentVolumeClaim> claims;

  public ProcessKubelet(KubernetesClient client, String namespace, Path root) {
    this.client = client;
    this.namespace = namespace;
    this.root = root;
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
                    worker.execute(() -> sync(pod));
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    worker.execute(() -> sync(pod));
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    worker.execute(
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
                    worker.execute(() -> wipe(c.getMetadata().getName()));
                  }
                });
    return this;
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
    LocalProcess old = processes.remove(name);
    if (old != null) {
      old.stop();
    }
    Container etcd = pod.getSpec().getContainers().get(0);
    Path data = dataDir(pod);
    List<String> command = new ArrayList<>();
    command.add("/usr/bin/etcd");
    for (String arg : etcd.getArgs()) {
      command.add(arg.startsWith("--data-dir=") ? "--data-dir=" + data.resolve("data") : arg);
    }
    try {
      Files.createDirectories(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LocalProcess process =
        LocalProcess.start(
            "etcd-" + name,
            command,
            root.resolve("logs").resolve(name + "-" + pod.getMetadata().getUid() + ".log"));
    processes.put(name, process);
    podUids.put(name, pod.getMetadata().getUid());
    LOG.info("started {} for Pod {}/{}", process, namespace, name);
  }

  private void stop(String name, String uid) {
    if (!uid.equals(podUids.get(name))) {
      return;
    }
    podUids.remove(name);
    LocalProcess p = processes.remove(name);
    if (p != null) {
      p.stop();
      LOG.info("stopped {} of deleted Pod {}/{}", p, namespace, name);
    }
  }

  private Path dataDir(Pod pod) {
    String claim =
        pod.getSpec().getVolumes().stream()
            .filter(v -> v.getPersistentVolumeClaim() != null)
            .map(Volume::getPersistentVolumeClaim)
            .findFirst()
            .orElseThrow()
            .getClaimName();
    return root.resolve("volumes").resolve(claim);
  }

  private void wipe(String claim) {
    Path dir = root.resolve("volumes").resolve(claim);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The process of a member Pod, if one runs. */
  public Optional<LocalProcess> process(String member) {
    return Optional.ofNullable(processes.get(member));
  }

  /** True when the member's data directory exists (its volume holds data). */
  public boolean hasData(String claim) {
    return Files.isDirectory(root.resolve("volumes").resolve(claim).resolve("data"));
  }

  @Override
  public void close() {
    if (pods != null) {
      pods.close();
    }
    if (claims != null) {
      claims.close();
    }
    worker.shutdownNow();
    processes.values().forEach(LocalProcess::kill);
    processes.clear();
  }

  /** The data directory the Pod's argument points at (for assertions on the Pod spec). */
  static String dataDirArg() {
    return "--data-dir=" + MemberPods.DATA_DIR;
  }
}
