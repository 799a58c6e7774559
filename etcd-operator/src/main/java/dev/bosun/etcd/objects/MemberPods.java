package dev.bosun.etcd.objects;

import dev.bosun.common.backup.BackupStores;
import dev.bosun.common.meta.EnvVars;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.meta.MetricsEndpoints;
import dev.bosun.common.runtime.OperatorImage;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.restore.FetchSnapshot;
import dev.bosun.etcd.restore.RestoreSecrets;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.restore.SnapshotRoute;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Pod.AntiAffinity;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Pod of one member: etcd with its name, its addresses from the {@link MemberAddressing} seam,
 * the initial membership it joins, and its data on its own volume. Pods are created, never updated:
 * a new version means a new Pod on the same volume, one member at a time.
 */
public final class MemberPods {

  /** Where the member's volume is mounted; the data directory is below it. */
  public static final String DATA_MOUNT = "/var/lib/etcd";

  public static final String DATA_DIR = DATA_MOUNT + "/data";
  static final String TLS_DIR = "/etc/etcd/tls";

  /** The name of the member's etcd container. */
  public static final String ETCD_CONTAINER = "etcd";

  private MemberPods() {}

  /** Whether the member starts a new cluster or joins an existing one. */
  public enum State {
    NEW,
    EXISTING
  }

  /**
   * The member Pod.
   *
   * @param initialCluster member name to peer URL of the membership it starts in or joins
   */
  public static Pod desired(
      EtcdCluster cluster,
      ClusterRef ref,
      MemberAddressing addressing,
      String member,
      Map<String, URI> initialCluster,
      State state,
      boolean voter) {
    EtcdClusterSpec spec = cluster.getSpec();
    Map<String, String> labels = new LinkedHashMap<>();
    if (spec.getPod() != null && spec.getPod().getLabels() != null) {
      labels.putAll(spec.getPod().getLabels());
    }
    labels.putAll(memberLabels(cluster, member));
    labels.put(EtcdOperator.VOTER_LABEL, Boolean.toString(voter));
    Map<String, String> annotations = new LinkedHashMap<>();
    if (spec.getPod() != null && spec.getPod().getAnnotations() != null) {
      annotations.putAll(spec.getPod().getAnnotations());
    }
    annotations.put(EtcdOperator.VERSION_ANNOTATION, spec.getVersion());

    List<String> args = new ArrayList<>();
    args.add("--name=" + member);
    args.add("--data-dir=" + DATA_DIR);
    args.add("--listen-peer-urls=" + addressing.listenPeerUrl(ref, member));
    args.add("--listen-client-urls=" + addressing.listenClientUrl(ref, member));
    args.add("--advertise-client-urls=" + addressing.clientUrl(ref, member));
    args.add("--initial-advertise-peer-urls=" + addressing.peerUrl(ref, member));
    args.add(
        "--initial-cluster="
            + initialCluster.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",")));
    args.add("--initial-cluster-state=" + (state == State.NEW ? "new" : "existing"));
    args.add("--initial-cluster-token=" + cluster.getMetadata().getUid());
    args.addAll(maintenanceFlags(spec));
    List<ContainerPort> ports = new ArrayList<>();
    ports.add(
        new ContainerPortBuilder()
            .withName("client")
            .withContainerPort(MemberAddressing.CLIENT_PORT)
            .build());
    ports.add(
        new ContainerPortBuilder()
            .withName("peer")
            .withContainerPort(MemberAddressing.PEER_PORT)
            .build());
    Optional<Integer> metricsPort = MemberMetrics.port(spec);
    if (metricsPort.isPresent()) {
      int port = metricsPort.get();
      args.addAll(MemberMetrics.flags(spec, addressing.listenMetricsUrl(ref, member, port)));
      ports.add(MetricsEndpoints.containerPort(port));
      annotations.putAll(MetricsEndpoints.scrapeAnnotations(port));
    }
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(new VolumeMountBuilder().withName("data").withMountPath(DATA_MOUNT).build());
    List<Volume> volumes = new ArrayList<>();
    volumes.add(
        new VolumeBuilder()
            .withName("data")
            .withNewPersistentVolumeClaim()
            .withClaimName(MemberVolumes.claimName(member))
            .endPersistentVolumeClaim()
            .build());
    if (spec.getTls() != null && spec.getTls().getServerSecretName() != null) {
      String dir = TLS_DIR + "/server";
      args.add("--cert-file=" + dir + "/tls.crt");
      args.add("--key-file=" + dir + "/tls.key");
      args.add("--trusted-ca-file=" + dir + "/ca.crt");
      args.add("--client-cert-auth=true");
      mounts.add(secretMount("server-tls", dir));
      volumes.add(secretVolume("server-tls", spec.getTls().getServerSecretName()));
    }
    if (spec.getTls() != null && spec.getTls().getPeerSecretName() != null) {
      String dir = TLS_DIR + "/peer";
      args.add("--peer-cert-file=" + dir + "/tls.crt");
      args.add("--peer-key-file=" + dir + "/tls.key");
      args.add("--peer-trusted-ca-file=" + dir + "/ca.crt");
      args.add("--peer-client-cert-auth=true");
      mounts.add(secretMount("peer-tls", dir));
      volumes.add(secretVolume("peer-tls", spec.getTls().getPeerSecretName()));
    }

    var resources = new ResourceRequirementsBuilder();
    if (spec.getResources() != null) {
      if (spec.getResources().getRequests() != null) {
        var r = spec.getResources().getRequests();
        resources.withRequests(quantities(r.getCpu(), r.getMemory()));
      }
      if (spec.getResources().getLimits() != null) {
        var l = spec.getResources().getLimits();
        resources.withLimits(quantities(l.getCpu(), l.getMemory()));
      }
    }

    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(member)
            .withNamespace(cluster.getMetadata().getNamespace())
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata()
            .withNewSpec()
            .withHostname(member)
            .withSubdomain(ServiceAddressing.peerService(cluster.getMetadata().getName()))
            .withEnableServiceLinks(false)
            .withTerminationGracePeriodSeconds(30L)
            .addNewContainer()
            .withName(ETCD_CONTAINER)
            .withImage(spec.getRepository() + ":v" + spec.getVersion())
            .withCommand("etcd")
            .withArgs(args)
            .withPorts(ports)
            .withVolumeMounts(mounts)
            .withResources(resources.build())
            .withReadinessProbe(readiness(spec, addressing.clientUrl(ref, member)))
            .withNewSecurityContext()
            .withAllowPrivilegeEscalation(false)
            .withReadOnlyRootFilesystem(true)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext()
            .endContainer()
            .withVolumes(volumes)
            .endSpec();
    if (spec.getPod() != null) {
      var p = spec.getPod();
      if (p.getNodeSelector() != null) {
        pod.editSpec().withNodeSelector(p.getNodeSelector()).endSpec();
      }
      if (p.getTolerations() != null) {
        pod.editSpec().withTolerations(p.getTolerations()).endSpec();
      }
      if (p.getPriorityClassName() != null) {
        pod.editSpec().withPriorityClassName(p.getPriorityClassName()).endSpec();
      }
    }
    Affinity affinity = antiAffinity(cluster);
    if (affinity != null) {
      pod.editSpec().withAffinity(affinity).endSpec();
    }
    return pod.build();
  }

  /** Periodic compaction of the last hour unless the spec says otherwise. */
  static final String DEFAULT_RETENTION = "1h";

  /**
   * etcd's own automatic compaction (it runs on the leader, needs no operator, and keeps going
   * while the operator is down) and the backend quota.
   */
  static List<String> maintenanceFlags(EtcdClusterSpec spec) {
    var compaction = spec.getMaintenance() == null ? null : spec.getMaintenance().getCompaction();
    boolean revision = compaction != null && compaction.getMode() == Compaction.Mode.REVISION;
    String retention =
        compaction == null || compaction.getRetention() == null
            ? DEFAULT_RETENTION
            : compaction.getRetention();
    List<String> flags = new ArrayList<>();
    flags.add("--auto-compaction-mode=" + (revision ? "revision" : "periodic"));
    flags.add("--auto-compaction-retention=" + retention);
    if (spec.getStorage() != null && spec.getStorage().getQuotaBackendBytes() != null) {
      flags.add("--quota-backend-bytes=" + spec.getStorage().getQuotaBackendBytes());
    }
    return flags;
  }

  /**
   * Ready means the member serves: it has a leader and answers a linearizable read, not merely that
   * its port is open, and not that no alarm is raised. An alarm such as NOSPACE refuses writes but
   * leaves reads working, and a member that fails readiness drops out of the client Service: every
   * endpoint would vanish during NOSPACE, and with them the reads and the way out (compaction,
   * defragmentation and disarming go to the members). Alarms are reported in the status instead.
   * Plain HTTP: {@code GET /health?exclude=NOSPACE} on the client port (etcd 3.4.23 and later:
   * false without a leader or with another alarm, such as CORRUPT). With client TLS that endpoint
   * demands a client certificate a kubelet does not have, so the probe runs the image's own {@code
   * etcdctl get --consistency=l} against the member's client URL with the mounted server
   * certificate (which must allow client authentication, as kubeadm's etcd certificates do): a
   * linearizable read needs a leader and ignores alarms in every supported version, where {@code
   * endpoint health} checks alarms in some.
   */
  /** etcd's health endpoint, with the one alarm that leaves a member serving reads excluded. */
  static final String HEALTH_PATH = "/health?exclude=NOSPACE";

  static Probe readiness(EtcdClusterSpec spec, URI clientUrl) {
    ProbeBuilder probe =
        new ProbeBuilder()
            .withPeriodSeconds(5)
            .withTimeoutSeconds(5)
            .withFailureThreshold(3)
            .withSuccessThreshold(1);
    if (spec.getTls() == null || spec.getTls().getServerSecretName() == null) {
      return probe
          .withNewHttpGet()
          .withPath(HEALTH_PATH)
          .withNewPort("client")
          .withScheme("HTTP")
          .endHttpGet()
          .build();
    }
    String dir = TLS_DIR + "/server";
    return probe
        .withNewExec()
        .withCommand(
            "etcdctl",
            "--endpoints=" + clientUrl,
            "--cacert=" + dir + "/ca.crt",
            "--cert=" + dir + "/tls.crt",
            "--key=" + dir + "/tls.key",
            "--command-timeout=3s",
            "get",
            "--consistency=l",
            "--keys-only",
            "health")
        .endExec()
        .build();
  }

  /** Where restore init containers stage the snapshot and the restored data (an emptyDir). */
  public static final String RESTORE_MOUNT = "/restore";

  /**
   * Where the fetch container of a restore from the backup volume finds the cluster's restore
   * Secret (token and CA) as files: a token in a file is in no command line, no environment listing
   * and no Pod spec.
   */
  public static final String RESTORE_SECRET_MOUNT = "/var/run/bosun/restore";

  /**
   * The first member of a cluster restored from a backup: three init containers fetch the snapshot
   * (operator image), restore it with {@code etcdctl snapshot restore} (etcd image) into an
   * emptyDir, and move it onto the member's volume unless that already holds data.
   */
  public static Pod withRestore(
      Pod pod,
      EtcdCluster cluster,
      ClusterRef ref,
      MemberAddressing addressing,
      String member,
      RestoreSource source,
      String operatorImage) {
    String peer = addressing.peerUrl(ref, member).toString();
    VolumeMount data = new VolumeMountBuilder().withName("data").withMountPath(DATA_MOUNT).build();
    VolumeMount staging =
        new VolumeMountBuilder().withName("restore").withMountPath(RESTORE_MOUNT).build();
    List<String> java =
        List.of("java", "-cp", OperatorImage.CLASSPATH, FetchSnapshot.class.getName());
    var fetch =
        new ContainerBuilder()
            .withName("fetch-snapshot")
            .withImage(operatorImage)
            .withCommand(java)
            .withArgs("fetch", RESTORE_MOUNT + "/snapshot.db")
            .withEnv(fetchEnv(cluster, source))
            .withVolumeMounts(fetchMounts(staging, source))
            .build();
    Container restore = restoreContainer(cluster, member, peer, staging);
    Container install = installContainer(operatorImage, java, staging, data);
    return new PodBuilder(pod)
        .editMetadata()
        .addToAnnotations(EtcdOperator.RESTORED_FROM_ANNOTATION, source.location())
        .endMetadata()
        .editSpec()
        .withInitContainers(fetch, restore, install)
        .addToVolumes(
            new VolumeBuilder().withName("restore").withNewEmptyDir().endEmptyDir().build())
        .addToVolumes(fetchVolumes(cluster, source).toArray(Volume[]::new))
        .endSpec()
        .build();
  }

  /** Restores the fetched snapshot into the staging volume with the cluster's own etcdctl. */
  private static Container restoreContainer(
      EtcdCluster cluster, String member, String peer, VolumeMount staging) {
    return new ContainerBuilder()
        .withName("restore-snapshot")
        .withImage(cluster.getSpec().getRepository() + ":v" + cluster.getSpec().getVersion())
        .withCommand("etcdctl")
        .withArgs(
            "snapshot",
            "restore",
            RESTORE_MOUNT + "/snapshot.db",
            "--name=" + member,
            "--data-dir=" + RESTORE_MOUNT + "/data",
            "--initial-cluster=" + member + "=" + peer,
            "--initial-advertise-peer-urls=" + peer,
            "--initial-cluster-token=" + cluster.getMetadata().getUid())
        .withEnv(EnvVars.of("ETCDCTL_API", "3"))
        .withVolumeMounts(staging)
        .build();
  }

  /** Moves the restored data onto the member's volume unless that already holds data. */
  private static Container installContainer(
      String operatorImage, List<String> java, VolumeMount staging, VolumeMount data) {
    return new ContainerBuilder()
        .withName("install-snapshot")
        .withImage(operatorImage)
        .withCommand(java)
        .withArgs("install", RESTORE_MOUNT + "/data", DATA_DIR)
        .withVolumeMounts(staging, data)
        // etcdctl wrote the restored files as the etcd image's user (mode 0700) and the member
        // runs as that user: this copy runs as root, with just the capabilities to read them
        // and keep their owner, whichever user that is.
        .withNewSecurityContext()
        .withRunAsUser(0L)
        .withRunAsNonRoot(false)
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .withAdd("CHOWN", "DAC_OVERRIDE", "FOWNER")
        .endCapabilities()
        .endSecurityContext()
        .build();
  }

  private static final String RESTORE_SECRET_VOLUME = "restore-secret";

  private static List<VolumeMount> fetchMounts(VolumeMount staging, RestoreSource source) {
    if (!(source instanceof RestoreSource.Volume)) {
      return List.of(staging);
    }
    return List.of(
        staging,
        new VolumeMountBuilder()
            .withName(RESTORE_SECRET_VOLUME)
            .withMountPath(RESTORE_SECRET_MOUNT)
            .withReadOnly(true)
            .build());
  }

  /** The cluster's restore Secret as files, for a restore from the operator's backup volume. */
  private static List<Volume> fetchVolumes(EtcdCluster cluster, RestoreSource source) {
    if (!(source instanceof RestoreSource.Volume)) {
      return List.of();
    }
    return List.of(
        new VolumeBuilder()
            .withName(RESTORE_SECRET_VOLUME)
            .withNewSecret()
            .withSecretName(RestoreSecrets.name(cluster.getMetadata().getName()))
            // Readable by whichever user the image runs as; only the fetch container mounts it.
            .withDefaultMode(0444)
            .endSecret()
            .build());
  }

  /**
   * Where the fetch container finds the snapshot: the store and its credentials for S3; for the
   * operator's backup volume, the operator's HTTPS URL of this cluster's snapshot, and the files of
   * the cluster's restore Secret holding the token and the CA to trust (the token is never in the
   * Pod spec or the container's environment).
   */
  static List<EnvVar> fetchEnv(EtcdCluster cluster, RestoreSource source) {
    if (source instanceof RestoreSource.Volume volume) {
      return List.of(
          EnvVars.of(
              FetchSnapshot.URL,
              SnapshotRoute.url(
                      volume.operatorUrl(),
                      cluster.getMetadata().getNamespace(),
                      cluster.getMetadata().getName())
                  .toString()),
          EnvVars.of(FetchSnapshot.KEY, volume.key()),
          EnvVars.of(FetchSnapshot.TOKEN_FILE, RESTORE_SECRET_MOUNT + "/" + RestoreSecrets.TOKEN),
          EnvVars.of(FetchSnapshot.CA_FILE, RESTORE_SECRET_MOUNT + "/" + RestoreSecrets.CA));
    }
    RestoreSource.S3 s3 = (RestoreSource.S3) source;
    return List.of(
        EnvVars.of(FetchSnapshot.ENDPOINT, s3.endpoint()),
        EnvVars.of(FetchSnapshot.REGION, s3.region()),
        EnvVars.of(FetchSnapshot.BUCKET, s3.bucket()),
        EnvVars.of(FetchSnapshot.PATH_STYLE, Boolean.toString(s3.pathStyle())),
        EnvVars.of(FetchSnapshot.KEY, s3.key()),
        EnvVars.fromSecret(
            FetchSnapshot.ACCESS_KEY_ID, s3.credentialsSecret(), BackupStores.ACCESS_KEY_ID),
        EnvVars.fromSecret(
            FetchSnapshot.SECRET_ACCESS_KEY,
            s3.credentialsSecret(),
            BackupStores.SECRET_ACCESS_KEY));
  }

  /** The labels of everything that belongs to one member. */
  public static Map<String, String> memberLabels(EtcdCluster cluster, String member) {
    Map<String, String> labels =
        Labels.of(cluster, EtcdOperator.APP, EtcdOperator.MEMBER_COMPONENT, EtcdOperator.NAME);
    labels.put(EtcdOperator.MEMBER_LABEL, member);
    return labels;
  }

  /** Selects the Pods of the cluster's voting members (what its disruption budget protects). */
  public static Map<String, String> voterSelector(EtcdCluster cluster) {
    Map<String, String> selector = new LinkedHashMap<>(selector(cluster));
    selector.put(EtcdOperator.VOTER_LABEL, "true");
    return selector;
  }

  /** Selects every member Pod and volume of the cluster. */
  public static Map<String, String> selector(EtcdCluster cluster) {
    return Labels.selector(cluster, EtcdOperator.APP, EtcdOperator.MEMBER_COMPONENT);
  }

  private static Affinity antiAffinity(EtcdCluster cluster) {
    AntiAffinity mode =
        cluster.getSpec().getPod() == null || cluster.getSpec().getPod().getAntiAffinity() == null
            ? AntiAffinity.PREFERRED
            : cluster.getSpec().getPod().getAntiAffinity();
    if (mode == AntiAffinity.NONE) {
      return null;
    }
    PodAffinityTerm term =
        new PodAffinityTermBuilder()
            .withTopologyKey("kubernetes.io/hostname")
            .withLabelSelector(
                new LabelSelectorBuilder().withMatchLabels(selector(cluster)).build())
            .build();
    var builder = new AffinityBuilder().withNewPodAntiAffinity();
    if (mode == AntiAffinity.REQUIRED) {
      builder.withRequiredDuringSchedulingIgnoredDuringExecution(term);
    } else {
      builder
          .addNewPreferredDuringSchedulingIgnoredDuringExecution()
          .withWeight(100)
          .withPodAffinityTerm(term)
          .endPreferredDuringSchedulingIgnoredDuringExecution();
    }
    return builder.endPodAntiAffinity().build();
  }

  private static Map<String, Quantity> quantities(String cpu, String memory) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    if (cpu != null) {
      q.put("cpu", new Quantity(cpu));
    }
    if (memory != null) {
      q.put("memory", new Quantity(memory));
    }
    return q;
  }

  private static VolumeMount secretMount(String name, String path) {
    return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(true).build();
  }

  private static Volume secretVolume(String name, String secret) {
    return new VolumeBuilder()
        .withName(name)
        .withNewSecret()
        .withSecretName(secret)
        .withDefaultMode(0400)
        .endSecret()
        .build();
  }
}
