package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's dynamic volume provisioner, as kind's local-path provisioner: a default StorageClass
 * whose claims each get a PersistentVolume on a directory of their own under the node's folder. A
 * Pod re-created on the same claim finds its data; a released volume is deleted with its directory
 * under reclaim policy {@code Delete} and kept under {@code Retain}.
 */
public final class HostPathProvisioner implements AutoCloseable {

  public static final String STORAGE_CLASS = "bosun-hostpath";
  public static final String PROVISIONER = "bosun.dev/hostpath";
  private static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  private static final Logger LOG = LoggerFactory.getLogger(HostPathProvisioner.class);

  private final KubernetesClient client;
  private final Path root;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "hostpath-provisioner"));
  private SharedIndexInformer<PersistentVolumeClaim> claims;
  private SharedIndexInformer<PersistentVolume> volumes;

  public HostPathProvisioner(KubernetesClient client, Path root) {
    this.client = client;
    this.root = root;
  }

  /** Creates the default StorageClass and starts provisioning and reclaiming. */
  public HostPathProvisioner start() {
    client
        .storage()
        .v1()
        .storageClasses()
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(STORAGE_CLASS)
                .withAnnotations(Map.of("storageclass.kubernetes.io/is-default-class", "true"))
                .endMetadata()
                .withProvisioner(PROVISIONER)
                .withReclaimPolicy("Delete")
                .withVolumeBindingMode("Immediate")
                .build())
        .createOr(existing -> existing.update());
    claims =
        client
            .persistentVolumeClaims()
            .inAnyNamespace()
            .inform(handler(c -> worker.execute(() -> provision(c))));
    volumes = client.persistentVolumes().inform(handler(v -> worker.execute(() -> reclaim(v))));
    return this;
  }

  private static <T> ResourceEventHandler<T> handler(java.util.function.Consumer<T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        onChange.accept(obj);
      }

      @Override
      public void onUpdate(T old, T obj) {
        onChange.accept(obj);
      }

      @Override
      public void onDelete(T obj, boolean unknown) {}
    };
  }

  private void provision(PersistentVolumeClaim claim) {
    if (!waitsForThisProvisioner(claim)) {
      return;
    }
    String name = "pvc-" + claim.getMetadata().getUid();
    if (client.persistentVolumes().withName(name).get() != null) {
      return;
    }
    create(volume(claim, name, hostDirectory(claim)), claim);
  }

  /** A pending claim of this provisioner's storage class, not yet bound nor being deleted. */
  private static boolean waitsForThisProvisioner(PersistentVolumeClaim claim) {
    String className = claim.getSpec().getStorageClassName();
    boolean pending = claim.getStatus() == null || "Pending".equals(claim.getStatus().getPhase());
    return STORAGE_CLASS.equals(className)
        && pending
        && claim.getSpec().getVolumeName() == null
        && claim.getMetadata().getDeletionTimestamp() == null;
  }

  /** The claim's directory on the host, created open to every workload user. */
  private Path hostDirectory(PersistentVolumeClaim claim) {
    Path dir =
        root.resolve(
            claim.getMetadata().getNamespace()
                + "-"
                + claim.getMetadata().getName()
                + "-"
                + claim.getMetadata().getUid());
    try {
      Files.createDirectories(dir);
      // Workloads run as their own users (mysql, etcd, 65532): the directory is theirs to use.
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  private static PersistentVolume volume(PersistentVolumeClaim claim, String name, Path dir) {
    Quantity size = claim.getSpec().getResources().getRequests().get("storage");
    PersistentVolume volume =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(name)
            .withAnnotations(Map.of(PROVISIONED_BY, PROVISIONER))
            .endMetadata()
            .withNewSpec()
            .withCapacity(Map.of("storage", size))
            .withAccessModes(claim.getSpec().getAccessModes())
            .withStorageClassName(STORAGE_CLASS)
            .withPersistentVolumeReclaimPolicy("Delete")
            .withVolumeMode(claim.getSpec().getVolumeMode())
            .withNewHostPath()
            .withPath(dir.toString())
            .withType("Directory")
            .endHostPath()
            .withClaimRef(
                new ObjectReferenceBuilder()
                    .withKind("PersistentVolumeClaim")
                    .withApiVersion("v1")
                    .withNamespace(claim.getMetadata().getNamespace())
                    .withName(claim.getMetadata().getName())
                    .withUid(claim.getMetadata().getUid())
                    .build())
            .endSpec()
            .build();
    return volume;
  }

  private void create(PersistentVolume volume, PersistentVolumeClaim claim) {
    String name = volume.getMetadata().getName();
    try {
      client.persistentVolumes().resource(volume).create();
      LOG.info(
          "provisioned {} for {}/{}",
          name,
          claim.getMetadata().getNamespace(),
          claim.getMetadata().getName());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        LOG.warn("cannot provision {}: {}", name, e.getMessage());
      }
    }
  }

  private void reclaim(PersistentVolume volume) {
    boolean ours = PROVISIONER.equals(volume.getMetadata().getAnnotations().get(PROVISIONED_BY));
    boolean released =
        volume.getStatus() != null && "Released".equals(volume.getStatus().getPhase());
    if (!ours
        || !released
        || !"Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())) {
      return;
    }
    Path dir = Path.of(volume.getSpec().getHostPath().getPath());
    if (dir.startsWith(root)) {
      ScratchDirectories.delete(dir);
    }
    client.persistentVolumes().withName(volume.getMetadata().getName()).delete();
    LOG.info("deleted released volume {} and its directory", volume.getMetadata().getName());
  }

  @Override
  public void close() {
    if (claims != null) {
      claims.close();
    }
    if (volumes != null) {
      volumes.close();
    }
    worker.shutdownNow();
  }
}
