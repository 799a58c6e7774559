package dev.bosun.etcd.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The admission webhook's rules for EtcdClusters: the reconciler's own {@link
 * EtcdClusterValidator}, so a spec is refused at apply time with the message {@code InvalidSpec}
 * would carry, and a version change is judged against the versions the stored status says the
 * members run.
 */
public final class EtcdClusterAdmission implements AdmissionRules<EtcdCluster> {

  /** The route the webhook configuration sends EtcdCluster reviews to. */
  public static final String PATH = "/validate/etcdclusters";

  @Override
  public List<String> problems(EtcdCluster object, EtcdCluster old) {
    List<String> problems =
        new ArrayList<>(
            EtcdClusterValidator.validate(
                object.getMetadata().getName(), object.getSpec(), runningVersions(old)));
    disabledMetricsPort(object).ifPresent(problems::add);
    return problems;
  }

  /**
   * The CRD's rule on metrics.port holds even while the endpoint is off, as a server running CEL
   * applies it; the reconciler leaves such a port alone (nothing listens on it), so a cluster
   * stored before the webhook is not stopped for it.
   */
  private static Optional<String> disabledMetricsPort(EtcdCluster object) {
    var metrics = object.getSpec().getMetrics();
    if (metrics == null || Boolean.TRUE.equals(metrics.getEnabled()) || metrics.getPort() == null) {
      return Optional.empty();
    }
    int port = metrics.getPort();
    return port == MemberAddressing.CLIENT_PORT || port == MemberAddressing.PEER_PORT
        ? Optional.of(EtcdClusterValidator.metricsPortProblem(port))
        : Optional.empty();
  }

  /** What the members of the stored cluster run, as its status last said; none for a new one. */
  static List<String> runningVersions(EtcdCluster old) {
    EtcdClusterStatus status = old == null ? null : old.getStatus();
    if (status == null) {
      return List.of();
    }
    if (status.getMembers() != null) {
      List<String> members =
          status.getMembers().stream().map(m -> m.getVersion()).filter(Objects::nonNull).toList();
      if (!members.isEmpty()) {
        return members;
      }
    }
    return status.getVersion() == null ? List.of() : List.of(status.getVersion());
  }
}
