package dev.bosun.e2e;

import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.common.testing.chaos.Nemesis;
import dev.bosun.platform.RealNodePlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The faults of an EtcdCluster on the real node, with the etcd operator running as the chart's
 * Pods: the Pod faults every operator meets ({@link RealNodePodFaults}) and a membership change,
 * the cluster grown from three members to five and shrunk back when the fault heals.
 */
final class RealNodeEtcdNemesis implements Nemesis {

  static final String API = "etcd.bosun.dev/v1alpha1";

  private final RealNodePlatform platform;
  private final String namespace;
  private final String cluster;
  private final RealNodePodFaults pods;

  RealNodeEtcdNemesis(RealNodePlatform platform, String namespace, String cluster) {
    this.platform = platform;
    this.namespace = namespace;
    this.cluster = cluster;
    this.pods = new RealNodePodFaults(platform, namespace, "etcd");
  }

  /** The menu for a three-member cluster named {@code cluster}. */
  static List<FaultKind> menu(String cluster) {
    List<String> members = List.of(cluster + "-0", cluster + "-1", cluster + "-2");
    List<FaultKind> menu = new ArrayList<>(RealNodePodFaults.menu(members));
    menu.add(
        FaultKind.lasting(
            "grow-to-5", 2, List.of("cluster"), Duration.ofSeconds(20), Duration.ofSeconds(40)));
    return menu;
  }

  @Override
  public void inject(Fault f) {
    if (pods.inject(f)) {
      return;
    }
    if (!"grow-to-5".equals(f.kind())) {
      throw new IllegalArgumentException("not on the menu: " + f.kind());
    }
    setSize(5);
  }

  @Override
  public void heal(Fault f) {
    if ("grow-to-5".equals(f.kind())) {
      setSize(3);
    } else {
      pods.heal(f);
    }
  }

  @Override
  public void healAll() {
    pods.healAll();
    setSize(3);
  }

  private void setSize(int size) {
    Edits.edit(
        platform
            .admin()
            .genericKubernetesResources(API, "EtcdCluster")
            .inNamespace(namespace)
            .withName(cluster),
        r -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
          spec.put("size", size);
          return r;
        });
  }
}
