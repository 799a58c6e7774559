package dev.bosun.mysql.reconciler;

import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.Rebuilder;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives a member whose server cannot start on its data a new, empty volume without deleting the old
 * one: the PersistentVolume is set to reclaim policy {@code Retain} and annotated with whose it
 * was, then the claim and the Pod are deleted, and the StatefulSet makes both again. Acts only on
 * the claim and Pod made before the replacement was recorded (and on a Pod made again on the old
 * claim while that was being deleted), so repeating it after a restart never touches the new
 * volume.
 */
final class VolumeReplacement {

  /** The annotation on a kept volume: the namespace, cluster and member it belonged to. */
  static final String KEPT_ANNOTATION = "mysql.bosun.dev/kept-volume-of";

  /** The annotation on a kept volume: when its replacement was recorded. */
  static final String KEPT_AT_ANNOTATION = "mysql.bosun.dev/kept-since";

  private final KubernetesClient client;
  private final MySQLCluster cluster;

  VolumeReplacement(KubernetesClient client, MySQLCluster cluster) {
    this.client = client;
    this.cluster = cluster;
  }

  /** {@code base}, knowing which members cannot recover and able to replace their volumes. */
  Rebuilder around(Rebuilder base, Map<String, String> unrecoverable) {
    return new Rebuilder() {
      @Override
      public String unsupported() {
        return base.unsupported();
      }

      @Override
      public boolean canKeepErrant() {
        return base.canKeepErrant();
      }

      @Override
      public String location(String artifact) {
        return base.location(artifact);
      }

      @Override
      public boolean start(Job job) {
        return base.start(job);
      }

      @Override
      public Progress progress() {
        return base.progress();
      }

      @Override
      public void forget() {
        base.forget();
      }

      @Override
      public Map<String, String> unrecoverable() {
        return unrecoverable;
      }

      @Override
      public String replaceVolume(String member, Instant since) throws InstanceException {
        return replace(member, since);
      }
    };
  }

  /** One pass of the replacement of {@code member}'s volume; what it did, or null. */
  String replace(String member, Instant since) throws InstanceException {
    String ns = cluster.getMetadata().getNamespace();
    String claimName = "data-" + member;
    List<String> did = new ArrayList<>();
    try {
      PersistentVolumeClaim claim =
          client.persistentVolumeClaims().inNamespace(ns).withName(claimName).get();
      boolean oldClaim = claim != null && madeBefore(claim, since);
      if (oldClaim && claim.getMetadata().getDeletionTimestamp() == null) {
        String volume = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
        if (volume != null && !volume.isEmpty()) {
          keep(volume, member, since);
          did.add("kept its volume " + volume + " (reclaim policy Retain; delete it when done)");
        }
        client.persistentVolumeClaims().inNamespace(ns).withName(claimName).delete();
        did.add("deleted its claim " + claimName);
      }
      Pod pod = client.pods().inNamespace(ns).withName(member).get();
      if (pod != null
          && pod.getMetadata().getDeletionTimestamp() == null
          && (madeBefore(pod, since) || (oldClaim && !running(pod)))) {
        client.pods().inNamespace(ns).withName(member).delete();
        did.add("deleted its Pod, which the StatefulSet makes again with a new claim");
      }
    } catch (KubernetesClientException e) {
      throw new InstanceException(
          e.getCode() == 403
              ? "the operator may not change PersistentVolumes, claims or Pods here (an install"
                  + " confined to namespaces has no cluster-wide rights): keep the volume of "
                  + claimName
                  + " yourself (reclaim policy Retain), then delete that claim and the Pod "
                  + member
              : "replacing the volume of " + member + ": " + HumanMessages.describe(e));
    }
    return did.isEmpty() ? null : String.join("; ", did);
  }

  /** Sets the volume to outlive its claim and says whose it was. */
  private void keep(String volume, String member, Instant since) {
    client
        .persistentVolumes()
        .withName(volume)
        .edit(
            v -> {
              v.getSpec().setPersistentVolumeReclaimPolicy("Retain");
              if (v.getMetadata().getAnnotations() == null) {
                v.getMetadata().setAnnotations(new HashMap<>());
              }
              v.getMetadata()
                  .getAnnotations()
                  .put(
                      KEPT_ANNOTATION,
                      cluster.getMetadata().getNamespace()
                          + "/"
                          + cluster.getMetadata().getName()
                          + "/"
                          + member);
              v.getMetadata().getAnnotations().put(KEPT_AT_ANNOTATION, since.toString());
              return v;
            });
  }

  /**
   * Made before the second {@code since} falls in: creation times have whole seconds, and a claim
   * the StatefulSet makes again within that second must count as new.
   */
  private static boolean madeBefore(HasMetadata o, Instant since) {
    String created = o.getMetadata().getCreationTimestamp();
    return created != null
        && Instant.parse(created).isBefore(since.truncatedTo(ChronoUnit.SECONDS));
  }

  private static boolean running(Pod pod) {
    return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }
}
