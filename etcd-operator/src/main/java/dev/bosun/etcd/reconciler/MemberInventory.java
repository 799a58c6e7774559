package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.objects.MemberPods;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.plan.MemberResources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The member Pods and volumes of a cluster. A converged cluster is looked at through the informers'
 * cache ({@link #cached}); anything the planner would act on is decided on a list from the API
 * server ({@link #read}), because deciding that a member lost its data on a stale view would remove
 * a healthy member.
 */
public record MemberInventory(
    Map<String, Pod> pods,
    Map<String, PersistentVolumeClaim> volumes,
    Set<String> retained,
    boolean fromCache) {

  /** Lists the cluster's member Pods and volumes from the API server. */
  public static MemberInventory read(KubernetesClient client, EtcdCluster cluster) {
    String ns = cluster.getMetadata().getNamespace();
    Map<String, String> selector = MemberPods.selector(cluster);
    return of(
        client.pods().inNamespace(ns).withLabels(selector).list().getItems(),
        client.persistentVolumeClaims().inNamespace(ns).withLabels(selector).list().getItems(),
        false);
  }

  /** The cluster's member Pods and volumes as the informers hold them: no request. */
  public static MemberInventory cached(ChildCache<EtcdCluster> cache, EtcdCluster cluster) {
    Map<String, String> selector = MemberPods.selector(cluster);
    return of(
        selected(cache.all(Pod.class), selector),
        selected(cache.all(PersistentVolumeClaim.class), selector),
        true);
  }

  private static <T extends HasMetadata> List<T> selected(
      List<T> objects, Map<String, String> selector) {
    return objects.stream()
        .filter(
            o ->
                o.getMetadata().getLabels() != null
                    && o.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }

  private static MemberInventory of(
      List<Pod> podList, List<PersistentVolumeClaim> volumeList, boolean fromCache) {
    Map<String, Pod> pods = new TreeMap<>();
    for (Pod p : podList) {
      member(p.getMetadata().getLabels()).ifPresent(m -> pods.put(m, p));
    }
    Map<String, PersistentVolumeClaim> volumes = new TreeMap<>();
    Set<String> retained = new HashSet<>();
    for (PersistentVolumeClaim v : volumeList) {
      Optional<String> m = member(v.getMetadata().getLabels());
      if (m.isEmpty()) {
        continue;
      }
      if ("true".equals(v.getMetadata().getLabels().get(EtcdOperator.RETAINED_LABEL))) {
        retained.add(m.get());
      } else {
        volumes.put(m.get(), v);
      }
    }
    return new MemberInventory(pods, volumes, retained, fromCache);
  }

  private static Optional<String> member(Map<String, String> labels) {
    return Optional.ofNullable(labels == null ? null : labels.get(EtcdOperator.MEMBER_LABEL));
  }

  /**
   * What the planner sees: a Pod being deleted counts as gone, a volume being deleted too. A name
   * whose Pod or volume is still terminating keeps its entry (without Pod or volume), so the
   * planner never gives that name to a new member meanwhile: its volume would be the old one on its
   * way out, and its Pod could not be created until the old one is gone.
   */
  public Map<String, MemberResources> resources() {
    Set<String> names = new HashSet<>(pods.keySet());
    names.addAll(volumes.keySet());
    Map<String, MemberResources> result = new LinkedHashMap<>();
    for (String name : names) {
      Pod pod = pods.get(name);
      PersistentVolumeClaim volume = volumes.get(name);
      boolean podAlive = pod != null && pod.getMetadata().getDeletionTimestamp() == null;
      boolean volumeAlive = volume != null && volume.getMetadata().getDeletionTimestamp() == null;
      result.put(
          name,
          new MemberResources(
              name,
              podAlive,
              volumeAlive,
              version(pod),
              podAlive && etcdRunning(pod),
              pod == null ? null : Instant.parse(pod.getMetadata().getCreationTimestamp()),
              volumeAlive ? MemberVolumes.origin(volume).orElse(null) : null));
    }
    return result;
  }

  /** Every member name anything of this cluster still uses. */
  public Set<String> names() {
    Set<String> names = new HashSet<>(pods.keySet());
    names.addAll(volumes.keySet());
    names.addAll(retained);
    return names;
  }

  /** True when a Pod of that name exists, even one still terminating. */
  public boolean podExists(String member) {
    return pods.containsKey(member);
  }

  /** The versions the live member Pods run. */
  public Collection<String> runningVersions() {
    return pods.values().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(MemberInventory::version)
        .filter(v -> !v.isEmpty())
        .distinct()
        .toList();
  }

  /**
   * True when Kubernetes reports the Pod running with its etcd container started and not
   * terminated: what a kubelet on the member's node saw, independent of the operator's network.
   */
  static boolean etcdRunning(Pod pod) {
    var status = pod.getStatus();
    if (status == null || !"Running".equals(status.getPhase())) {
      return false;
    }
    return status.getContainerStatuses() != null
        && status.getContainerStatuses().stream()
            .filter(c -> MemberPods.ETCD_CONTAINER.equals(c.getName()))
            .anyMatch(c -> c.getState() != null && c.getState().getRunning() != null);
  }

  private static String version(Pod pod) {
    if (pod == null || pod.getMetadata().getAnnotations() == null) {
      return "";
    }
    return pod.getMetadata().getAnnotations().getOrDefault(EtcdOperator.VERSION_ANNOTATION, "");
  }

  /** Members whose volume has data, in index order. */
  public List<String> withVolumes() {
    return List.copyOf(volumes.keySet());
  }
}
