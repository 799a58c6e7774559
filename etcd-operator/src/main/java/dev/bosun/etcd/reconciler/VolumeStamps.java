package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.VolumeOrigin;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stamps each member's volume with the etcd cluster and member its data belongs to, so that an
 * EtcdCluster deleted and created again over its kept volumes resumes the cluster they hold. Only a
 * member that answered healthy is stamped: its Pod runs on that volume, so the data is its own (a
 * member whose volume was replaced by an empty one never answers). A volume is written only when
 * its stamp differs: a converged cluster writes nothing.
 */
final class VolumeStamps {

  private static final Logger LOG = LoggerFactory.getLogger(VolumeStamps.class);

  private VolumeStamps() {}

  /** The stamps {@code view} shows to be missing or wrong, by member name. */
  static Map<String, VolumeOrigin> missing(EtcdView view, MemberInventory inventory) {
    Map<String, VolumeOrigin> missing = new LinkedHashMap<>();
    if (!view.reachable() || view.clusterId() == 0) {
      return missing;
    }
    String clusterId = Long.toHexString(view.clusterId());
    for (ObservedMember m : view.members()) {
      PersistentVolumeClaim volume = inventory.volumes().get(m.name());
      if (m.name().isEmpty()
          || !m.started()
          || !m.healthy()
          || volume == null
          || volume.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      VolumeOrigin wanted =
          new VolumeOrigin(
              clusterId,
              m.hexId(),
              view.peerUrls().getOrDefault(m.name(), List.of()).stream()
                  .map(URI::toString)
                  .collect(Collectors.joining(",")));
      if (!MemberVolumes.origin(volume).equals(Optional.of(wanted))) {
        missing.put(m.name(), wanted);
      }
    }
    return missing;
  }

  /** Writes the missing stamps (a merge patch of two annotations each). */
  static void ensure(
      KubernetesClient client, EtcdCluster cluster, EtcdView view, MemberInventory inventory) {
    String ns = cluster.getMetadata().getNamespace();
    missing(view, inventory)
        .forEach(
            (member, origin) -> {
              String claim = inventory.volumes().get(member).getMetadata().getName();
              String patch =
                  client
                      .getKubernetesSerialization()
                      .asJson(
                          Map.of("metadata", Map.of("annotations", MemberVolumes.stamp(origin))));
              client
                  .persistentVolumeClaims()
                  .inNamespace(ns)
                  .withName(claim)
                  .patch(
                      new PatchContext.Builder()
                          .withPatchType(PatchType.JSON_MERGE)
                          .withFieldManager(EtcdOperator.NAME)
                          .build(),
                      patch);
              LOG.debug(
                  "stamped volume {} with cluster {} member {}",
                  claim,
                  origin.clusterId(),
                  origin.memberId());
            });
  }
}
