package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIPBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the scheduler and the kubelet for a control plane that has neither: binds every Pod to one
 * simulated Node, then reports it Running and Ready after a delay, or failing the way it was told
 * to ({@link #fail}). Pods being deleted are removed at once so rollouts, scale-down, garbage
 * collection and namespace deletion complete. Pod IPs are only written into status: nothing ever
 * connects to them. The Pods of Jobs are only bound: {@link JobPodRuntime} runs them.
 */
public final class KubeletSimulator implements AutoCloseable {

  public static final String NODE_NAME = "bosun-simulated-node";
  private static final Logger LOG = LoggerFactory.getLogger(KubeletSimulator.class);

  private final KubernetesClient client;
  private final Duration readinessDelay;
  private final Map<String, PodFailure> failures = new ConcurrentHashMap<>();

  /** namespace/pod -> the tail of the log its crash-looping containers leave (their message). */
  private final Map<String, String> crashingPods = new ConcurrentHashMap<>();

  private final Map<String, String> podIps = new ConcurrentHashMap<>();
  private final AtomicInteger nextIp = new AtomicInteger(1);
  private final ScheduledExecutorService executor;
  private SharedIndexInformer<Pod> informer;

  public KubeletSimulator(KubernetesClient client, Duration readinessDelay) {
    this.client = client;
    this.readinessDelay = readinessDelay;
    this.executor =
        Executors.newScheduledThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "kubelet-simulator");
              t.setDaemon(true);
              return t;
            });
  }

  /** Registers the Node and starts watching Pods in every namespace. */
  public KubeletSimulator start() {
    ensureNode();
    informer =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    executor.execute(() -> handle(pod));
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    executor.execute(() -> handle(pod));
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    podIps.remove(pod.getMetadata().getUid());
                  }
                },
                0);
    return this;
  }

  /** Makes every Pod whose container image contains {@code imageFragment} fail that way. */
  public void fail(String imageFragment, PodFailure failure) {
    failures.put(imageFragment, failure);
  }

  /** Forgets every failure rule (Pods already failing are not repaired). */
  public void clearFailures() {
    failures.clear();
    crashingPods.clear();
  }

  /**
   * Makes the Pod {@code namespace}/{@code name} (and any Pod made again under that name)
   * crash-loop, its containers' last termination message being {@code logTail}, as a kubelet writes
   * it for a container with {@code terminationMessagePolicy: FallbackToLogsOnError}.
   */
  public void crashLoop(String namespace, String name, String logTail) {
    crashingPods.put(namespace + "/" + name, logTail);
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod != null) {
      report(namespace, name, pod.getMetadata().getUid());
    }
  }

  /** Lets the Pod {@code namespace}/{@code name} run again (its next report says so). */
  public void stopCrashLoop(String namespace, String name) {
    crashingPods.remove(namespace + "/" + name);
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod != null) {
      report(namespace, name, pod.getMetadata().getUid());
    }
  }

  private void ensureNode() {
    if (client.nodes().withName(NODE_NAME).get() == null) {
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName(NODE_NAME)
                  .addToLabels("kubernetes.io/hostname", NODE_NAME)
                  .endMetadata()
                  .build())
          .create();
    }
    // The controller manager writes the new node too (its CIDR, taints): retry a conflict.
    Edits.editStatus(
        client.nodes().withName(NODE_NAME),
        n -> {
          n.setStatus(
              new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                  .addNewCondition()
                  .withType("Ready")
                  .withStatus("True")
                  .withReason("KubeletReady")
                  .withMessage("simulated kubelet is posting ready status")
                  .withLastHeartbeatTime(now())
                  .withLastTransitionTime(now())
                  .endCondition()
                  .addToCapacity("cpu", new Quantity("64"))
                  .addToCapacity("memory", new Quantity("256Gi"))
                  .addToCapacity("pods", new Quantity("5000"))
                  .addToAllocatable("cpu", new Quantity("64"))
                  .addToAllocatable("memory", new Quantity("256Gi"))
                  .addToAllocatable("pods", new Quantity("5000"))
                  .addNewAddress()
                  .withType("InternalIP")
                  .withAddress("10.243.0.1")
                  .endAddress()
                  .build());
          return n;
        });
  }

  private void handle(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        if (!runsLocally(pod)) {
          // No kubelet will confirm the shutdown: finish the deletion as a kubelet would.
          client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
        }
      } else if (pod.getSpec().getNodeName() == null) {
        client
            .bindings()
            .inNamespace(ns)
            .resource(
                new BindingBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(ns)
                    .endMetadata()
                    .withNewTarget()
                    .withApiVersion("v1")
                    .withKind("Node")
                    .withName(NODE_NAME)
                    .endTarget()
                    .build())
            .create();
      } else if (!ownedByJob(pod) && !alreadyReported(pod)) {
        executor.schedule(
            () -> report(ns, name, pod.getMetadata().getUid()),
            readinessDelay.toMillis(),
            TimeUnit.MILLISECONDS);
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        LOG.warn("kubelet simulator: {}/{}: {}", ns, name, e.getMessage());
      }
    }
  }

  /** A Pod whose processes {@link JobPodRuntime} runs: it confirms the deletion once they end. */
  private static boolean runsLocally(Pod pod) {
    var a = pod.getMetadata().getAnnotations();
    return a != null && a.containsKey(JobPodRuntime.LOCAL_PROCESSES);
  }

  /** A Job's Pod runs to its end: {@link JobPodRuntime} reports it, never as Ready. */
  private static boolean ownedByJob(Pod pod) {
    return pod.getMetadata().getOwnerReferences().stream()
        .anyMatch(o -> "Job".equals(o.getKind()) && Boolean.TRUE.equals(o.getController()));
  }

  private PodFailure failureFor(Pod pod) {
    if (crashingPods.containsKey(key(pod))) {
      return PodFailure.CRASH_LOOP_BACKOFF;
    }
    for (Container c : pod.getSpec().getContainers()) {
      for (Map.Entry<String, PodFailure> rule : failures.entrySet()) {
        if (c.getImage() != null && c.getImage().contains(rule.getKey())) {
          return rule.getValue();
        }
      }
    }
    return null;
  }

  /** True when the Pod's status already says what this simulator would write. */
  private boolean alreadyReported(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return false;
    }
    PodFailure failure = failureFor(pod);
    String expectedWaiting =
        failure == PodFailure.IMAGE_PULL_BACKOFF
            ? "ImagePullBackOff"
            : failure == PodFailure.CRASH_LOOP_BACKOFF ? "CrashLoopBackOff" : null;
    List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
    if (statuses.size() != pod.getSpec().getContainers().size()) {
      return false;
    }
    for (ContainerStatus s : statuses) {
      String waiting =
          s.getState() != null && s.getState().getWaiting() != null
              ? s.getState().getWaiting().getReason()
              : null;
      if (!Objects.equals(waiting, expectedWaiting)) {
        return false;
      }
      boolean expectReady = failure == null;
      if (Boolean.TRUE.equals(s.getReady()) != expectReady) {
        return false;
      }
    }
    return true;
  }

  private void report(String ns, String name, String uid) {
    try {
      client
          .pods()
          .inNamespace(ns)
          .withName(name)
          .editStatus(
              pod -> {
                if (!uid.equals(pod.getMetadata().getUid())
                    || pod.getMetadata().getDeletionTimestamp() != null) {
                  return pod;
                }
                writeStatus(pod, failureFor(pod));
                return pod;
              });
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        LOG.warn("kubelet simulator: status of {}/{}: {}", ns, name, e.getMessage());
      }
    }
  }

  private void writeStatus(Pod pod, PodFailure failure) {
    String now = now();
    String ip = podIp(pod);
    boolean ready = failure == null;
    List<ContainerStatus> statuses = new ArrayList<>();
    for (Container c : pod.getSpec().getContainers()) {
      statuses.add(containerStatus(pod, c, failure, now));
    }
    String readyStatus = ready ? "True" : "False";
    List<PodCondition> conditions =
        List.of(
            condition("PodScheduled", "True", now),
            condition("Initialized", "True", now),
            condition("ContainersReady", readyStatus, now),
            condition("Ready", readyStatus, now));
    pod.getStatus().setPhase(failure == PodFailure.IMAGE_PULL_BACKOFF ? "Pending" : "Running");
    pod.getStatus().setConditions(conditions);
    pod.getStatus().setContainerStatuses(statuses);
    pod.getStatus().setHostIP("10.243.0.1");
    pod.getStatus().setPodIP(ip);
    pod.getStatus().setPodIPs(List.of(new PodIPBuilder().withIp(ip).build()));
    if (pod.getStatus().getStartTime() == null) {
      pod.getStatus().setStartTime(now);
    }
  }

  /** The Pod's address, the next free one of 10.244.0.0/16 the first time. */
  private String podIp(Pod pod) {
    return podIps.computeIfAbsent(
        pod.getMetadata().getUid(),
        k -> {
          int n = nextIp.getAndIncrement();
          return "10.244." + (n / 250) % 250 + "." + (n % 250 + 1);
        });
  }

  /** A container running and ready, or failing as {@code failure} says. */
  private ContainerStatus containerStatus(Pod pod, Container c, PodFailure failure, String now) {
    boolean ready = failure == null;
    ContainerStatusBuilder s =
        new ContainerStatusBuilder()
            .withName(c.getName())
            .withImage(c.getImage())
            .withImageID(
                failure == PodFailure.IMAGE_PULL_BACKOFF ? "" : "simulated://" + c.getImage())
            .withReady(ready)
            .withStarted(failure != PodFailure.IMAGE_PULL_BACKOFF)
            .withRestartCount(failure == PodFailure.CRASH_LOOP_BACKOFF ? 3 : 0);
    if (failure == PodFailure.IMAGE_PULL_BACKOFF) {
      s.withNewState()
          .withNewWaiting()
          .withReason("ImagePullBackOff")
          .withMessage("Back-off pulling image \"" + c.getImage() + "\"")
          .endWaiting()
          .endState();
    } else if (failure == PodFailure.CRASH_LOOP_BACKOFF) {
      s.withNewState()
          .withNewWaiting()
          .withReason("CrashLoopBackOff")
          .withMessage("back-off 40s restarting failed container=" + c.getName())
          .endWaiting()
          .endState()
          .withNewLastState()
          .withNewTerminated()
          .withExitCode(1)
          .withReason("Error")
          .withMessage(crashingPods.get(key(pod)))
          .withFinishedAt(now)
          .endTerminated()
          .endLastState();
    } else {
      s.withNewState().withNewRunning().withStartedAt(now).endRunning().endState();
    }
    return s.build();
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  private static PodCondition condition(String type, String status, String now) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withLastTransitionTime(now)
        .withReason("True".equals(status) ? null : "ContainersNotReady")
        .build();
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    executor.shutdownNow();
  }
}
