package dev.bosun.e2e;

import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.common.testing.chaos.Nemesis;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The faults of a MySQLCluster on the real node, with the MySQL operator running as the chart's
 * Pods: the Pod faults every operator meets ({@link RealNodePodFaults}), a switchover requested
 * (withdrawn when it heals) and a rebuild requested.
 */
final class RealNodeMySqlNemesis implements Nemesis {

  private final RealNodePlatform platform;
  private final RealNodeMySql db;
  private final String namespace;
  private final String cluster;
  private final RealNodePodFaults pods;

  RealNodeMySqlNemesis(
      RealNodePlatform platform, RealNodeMySql db, String namespace, String cluster) {
    this.platform = platform;
    this.db = db;
    this.namespace = namespace;
    this.cluster = cluster;
    this.pods = new RealNodePodFaults(platform, namespace, "mysql");
  }

  /** The menu for a three-member cluster named {@code cluster}. */
  static List<FaultKind> menu(String cluster) {
    List<String> members = List.of(cluster + "-0", cluster + "-1", cluster + "-2");
    List<FaultKind> menu = new ArrayList<>(RealNodePodFaults.menu(members));
    menu.add(
        FaultKind.lasting(
            "switchover-to", 2, members, Duration.ofSeconds(5), Duration.ofSeconds(15)));
    menu.add(FaultKind.instant("rebuild-requested", 1, members));
    return menu;
  }

  @Override
  public void inject(Fault f) {
    if (pods.inject(f)) {
      return;
    }
    switch (f.kind()) {
      case "switchover-to" -> switchover(f.target());
      case "rebuild-requested" -> db.requestRebuild(f.target());
      default -> throw new IllegalArgumentException("not on the menu: " + f.kind());
    }
  }

  @Override
  public void heal(Fault f) {
    if ("switchover-to".equals(f.kind())) {
      switchover(null);
    } else {
      pods.heal(f);
    }
  }

  @Override
  public void healAll() {
    pods.healAll();
    switchover(null);
  }

  /** Sets (or, for null, removes) spec.switchover.target. */
  @SuppressWarnings("unchecked")
  private void switchover(String target) {
    platform
        .admin()
        .genericKubernetesResources(RealNodeMySql.API, "MySQLCluster")
        .inNamespace(namespace)
        .withName(cluster)
        .edit(
            r -> {
              Map<String, Object> spec =
                  (Map<String, Object>) r.getAdditionalProperties().get("spec");
              if (target == null) {
                spec.remove("switchover");
              } else {
                Map<String, Object> s = new HashMap<>();
                s.put("target", target);
                spec.put("switchover", s);
              }
              return r;
            });
  }
}
