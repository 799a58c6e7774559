package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdClients;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Carries out a round's membership step ({@link StepExecutor}), then moves the voter labels and
 * closes the clients no member needs any more.
 */
final class MembershipStepRun {

  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final String operatorImage;

  MembershipStepRun(MemberAddressing addressing, EventRecorder events, String operatorImage) {
    this.addressing = addressing;
    this.events = events;
    this.operatorImage = operatorImage;
  }

  /** What carrying out {@code planned} did. */
  StepExecutor.Outcome run(
      KubernetesClient client,
      EtcdMembership etcd,
      EtcdClients clients,
      EtcdCluster cluster,
      ClusterRef ref,
      Planned planned) {
    StepExecutor executor = new StepExecutor(client, etcd, addressing, events, operatorImage);
    StepExecutor.Outcome outcome =
        executor.execute(
            cluster, ref, planned.view(), planned.inventory(), planned.step(), planned.restore());
    if (planned.view().reachable()) {
      labelVoters(executor, cluster, planned.view(), planned.inventory());
    }
    clients.retain(inUse(ref, planned.view(), planned.inventory()));
    return outcome;
  }

  /**
   * The client endpoints still worth a connection: members etcd lists and members with a Pod. The
   * clients of members that left (removed, replaced) are closed.
   */
  private Set<URI> inUse(ClusterRef ref, EtcdView view, MemberInventory inventory) {
    Set<String> names = new HashSet<>(inventory.pods().keySet());
    view.members().forEach(m -> names.add(m.name()));
    return names.stream()
        .filter(n -> MemberNames.isOurs(ref.name(), n))
        .map(n -> addressing.clientUrl(ref, n))
        .collect(Collectors.toSet());
  }

  /** Members promoted while their Pod label lagged behind get it now (writes only on mismatch). */
  private static void labelVoters(
      StepExecutor executor, EtcdCluster cluster, EtcdView view, MemberInventory inventory) {
    for (ObservedMember m : view.members()) {
      Pod pod = inventory.pods().get(m.name());
      if (m.voter()
          && pod != null
          && pod.getMetadata().getDeletionTimestamp() == null
          && !"true".equals(pod.getMetadata().getLabels().get(EtcdOperator.VOTER_LABEL))) {
        executor.markVoter(cluster, m.name());
      }
    }
  }
}
