package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the container runtime for the Pods the Job controller makes (those labelled {@value
 * #JOB_NAME}), in every namespace: runs each Pod's init containers, then its container, as local
 * processes ({@link LocalContainers}), and reports what a kubelet would: Running, then Succeeded or
 * Failed with each container's exit code and, for {@code FallbackToLogsOnError}, the tail of a
 * failed container's log as its termination message. The {@link KubeletSimulator} binds these Pods
 * and leaves their status to this. A Pod being deleted has its processes (and theirs) killed before
 * this runtime confirms the deletion, as a kubelet stops containers before a Pod is gone: the Pods
 * it runs carry {@value #LOCAL_PROCESSES}, which tells the simulator to leave that to it.
 */
public final class JobPodRuntime implements AutoCloseable {

  /** The label the Job controller puts on its Pods. */
  public static final String JOB_NAME = "job-name";

  /** The annotation of the Pods whose processes this runtime runs (and stops on deletion). */
  public static final String LOCAL_PROCESSES = "testing.bosun.dev/local-processes";

  /** The most of a log a termination message holds, as a kubelet keeps it. */
  static final int MESSAGE_BYTES = 2048;

  private static final Logger LOG = LoggerFactory.getLogger(JobPodRuntime.class);

  private final KubernetesClient client;
  private final Path root;
  private final LocalContainers containers;
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private final Map<String, java.util.concurrent.Future<?>> running = new ConcurrentHashMap<>();
  private final List<Pod> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final ExecutorService workers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "job-pod-runtime");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, CompletableFuture<Void>> done = new ConcurrentHashMap<>();
  private final Map<String, Instant> startedAt = new ConcurrentHashMap<>();
  private final Map<String, Instant> endedAt = new ConcurrentHashMap<>();
  private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
  private SharedIndexInformer<Pod> informer;

  /** A runtime whose containers run {@code binaries} of this machine, its files under root. */
  public JobPodRuntime(KubernetesClient client, Path root, Map<String, String> binaries) {
    this.client = client;
    this.root = root;
    this.containers = new LocalContainers(client, root, binaries);
  }

  /** Starts running the Pods of Jobs in every namespace. */
  public JobPodRuntime start() {
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withLabel(JOB_NAME)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    begin(pod);
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    begin(pod);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    stop(pod);
                  }
                });
    return this;
  }

  /**
   * Holds every Pod back before its first container until {@link #release}: a test stops and starts
   * the operator while a Job it made waits to run.
   */
  public void hold() {
    gate = new CompletableFuture<>();
  }

  /**
   * The Pods of {@code namespace} this runtime was given, as the API server stored them (after
   * admission), even once their Job is gone.
   */
  public List<Pod> ran(String namespace) {
    return ran.stream().filter(p -> namespace.equals(p.getMetadata().getNamespace())).toList();
  }

  /** When a Pod's first container started and its last process ended (null: not yet). */
  public record Run(Pod pod, Instant started, Instant ended) {}

  /** The Pods of {@code namespace} this runtime ran or runs, with when. */
  public List<Run> runs(String namespace) {
    return ran(namespace).stream()
        .map(
            p ->
                new Run(
                    p,
                    startedAt.get(p.getMetadata().getUid()),
                    endedAt.get(p.getMetadata().getUid())))
        .toList();
  }

  /** Whether a Pod is being held back now. */
  public boolean holding() {
    return !gate.isDone();
  }

  /** Lets held Pods run. */
  public void release() {
    gate.complete(null);
  }

  private void begin(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      stop(pod);
      finishDeletion(pod);
    } else if (started.add(pod.getMetadata().getUid())) {
      ran.add(pod);
      claim(pod);
      running.put(pod.getMetadata().getUid(), workers.submit(() -> run(pod)));
    }
  }

  /** Marks the Pod as this runtime's, so the simulator leaves its deletion to this. */
  private void claim(Pod pod) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"" + LOCAL_PROCESSES + "\":\"true\"}}}");
    } catch (KubernetesClientException e) {
      LOG.info("Job Pod {}: {}", pod.getMetadata().getName(), e.getMessage());
    }
  }

  /** Kills the Pod's processes, if they run, and waits until they are gone. */
  private void stop(Pod pod) {
    var worker = running.remove(pod.getMetadata().getUid());
    if (worker == null) {
      return;
    }
    worker.cancel(true);
    try {
      // The worker ends once its process and every process it started were killed.
      done.computeIfAbsent(pod.getMetadata().getUid(), k -> new CompletableFuture<>()).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.info("Job Pod {}: {}", pod.getMetadata().getName(), e.getMessage());
    }
  }

  /** Confirms the deletion, as a kubelet does once the containers stopped. */
  private void finishDeletion(Pod pod) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
    } catch (KubernetesClientException e) {
      LOG.info("Job Pod {}: {}", pod.getMetadata().getName(), e.getMessage());
    }
  }

  private void run(Pod pod) {
    try {
      runContainers(pod);
    } finally {
      if (startedAt.containsKey(pod.getMetadata().getUid())) {
        endedAt.put(pod.getMetadata().getUid(), Instant.now());
      }
      done.computeIfAbsent(pod.getMetadata().getUid(), k -> new CompletableFuture<>())
          .complete(null);
    }
  }

  private void runContainers(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Path logs = root.resolve("logs");
    try {
      gate.get();
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      // Deleted while held back: it never ran.
      return;
    }
    startedAt.put(pod.getMetadata().getUid(), Instant.now());
    report(pod, "Running", List.of(), List.of());
    List<ContainerStatus> inits = new ArrayList<>();
    for (Container init : pod.getSpec().getInitContainers()) {
      Path log = logs.resolve(name + "-" + init.getName() + ".log");
      int code = containers.run(pod, init, log, 600);
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      inits.add(terminated(init, code, log));
      if (code != 0) {
        LOG.info(
            "init container {} of Job Pod {}/{} exited with {}", init.getName(), ns, name, code);
        report(pod, "Failed", inits, List.of());
        return;
      }
    }
    List<ContainerStatus> mains = new ArrayList<>();
    boolean failed = false;
    for (Container c : pod.getSpec().getContainers()) {
      Path log = logs.resolve(name + "-" + c.getName() + ".log");
      int code = containers.run(pod, c, log, 600);
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      mains.add(terminated(c, code, log));
      failed |= code != 0;
    }
    LOG.info("Job Pod {}/{} ran: {}", ns, name, failed ? "Failed" : "Succeeded");
    report(pod, failed ? "Failed" : "Succeeded", inits, mains);
  }

  private ContainerStatus terminated(Container c, int code, Path log) {
    String message =
        code != 0 && "FallbackToLogsOnError".equals(c.getTerminationMessagePolicy())
            ? tail(log)
            : null;
    return new ContainerStatusBuilder()
        .withName(c.getName())
        .withImage(c.getImage())
        .withImageID("simulated://" + c.getImage())
        .withReady(false)
        .withRestartCount(0)
        .withNewState()
        .withNewTerminated()
        .withExitCode(code)
        .withReason(code == 0 ? "Completed" : "Error")
        .withMessage(message)
        .withFinishedAt(now())
        .endTerminated()
        .endState()
        .build();
  }

  private static String tail(Path log) {
    try {
      byte[] all = Files.readAllBytes(log);
      int from = Math.max(0, all.length - MESSAGE_BYTES);
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private void report(
      Pod pod, String phase, List<ContainerStatus> inits, List<ContainerStatus> mains) {
    String uid = pod.getMetadata().getUid();
    try {
      Edits.editStatus(
          client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName()),
          p -> {
            if (!uid.equals(p.getMetadata().getUid())) {
              return p;
            }
            p.getStatus().setPhase(phase);
            p.getStatus().setInitContainerStatuses(inits);
            p.getStatus().setContainerStatuses(mains);
            if (p.getStatus().getStartTime() == null) {
              p.getStatus().setStartTime(now());
            }
            return p;
          });
    } catch (KubernetesClientException e) {
      // The Pod went away (its Job was deleted): nothing to report to.
      LOG.info("Job Pod {}: {}", pod.getMetadata().getName(), e.getMessage());
    }
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  @Override
  public void close() {
    release();
    if (informer != null) {
      informer.close();
    }
    workers.shutdownNow();
  }
}
