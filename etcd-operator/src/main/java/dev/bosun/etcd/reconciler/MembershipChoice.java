package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.client.ClusterObserver;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.DestructiveSteps;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MembershipPlanner;
import dev.bosun.etcd.plan.Observation;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes etcd and lets the {@link MembershipPlanner} choose one step: on the API server's list of
 * members when the step acts on them, and confirmed through the leader when it is destructive.
 */
final class MembershipChoice {

  private static final Logger LOG = LoggerFactory.getLogger(MembershipChoice.class);

  private final MemberAddressing addressing;
  private final Clock clock;

  MembershipChoice(MemberAddressing addressing, Clock clock) {
    this.addressing = addressing;
    this.clock = clock;
  }

  /** etcd's membership and every known member's status, read over the client API. */
  EtcdView observe(
      EtcdCluster cluster, ClusterRef ref, EtcdMembership etcd, MemberInventory inventory) {
    return new ClusterObserver(etcd, addressing).observe(ref, knownNames(cluster, inventory));
  }

  /** The one membership step for what {@code view} and {@code inventory} show. */
  Planned choose(
      EtcdCluster cluster,
      ClusterRef ref,
      KubernetesClient client,
      EtcdMembership etcd,
      EtcdView view,
      MemberInventory inventory) {
    Step step = plan(cluster, view, inventory);
    if (!(step instanceof Step.Converged) && inventory.fromCache()) {
      // The planner wants to act on members: decide that on the API server's list, never on a
      // cache that may not yet hold a Pod or volume made a moment ago.
      inventory = MemberInventory.read(client, cluster);
      step = plan(cluster, view, inventory);
    }
    Planned planned = new Planned(step, view, inventory, Optional.empty());
    return DestructiveSteps.destructive(step) ? confirm(cluster, ref, etcd, planned) : planned;
  }

  /**
   * A step that removes a member or deletes a Pod or volume is planned again on a linearizable
   * member list read through the leader, and carried out only if that plan chooses it too.
   */
  private Planned confirm(EtcdCluster cluster, ClusterRef ref, EtcdMembership etcd, Planned first) {
    Optional<ObservedMember> leader = first.view().leader().filter(m -> !m.name().isEmpty());
    EtcdView confirmed =
        leader.isEmpty()
            ? EtcdView.unreachable()
            : new ClusterObserver(etcd, addressing)
                .confirm(
                    ref,
                    knownNames(cluster, first.inventory()),
                    addressing.clientUrl(ref, leader.get().name()));
    if (!confirmed.reachable()) {
      return first.withStep(DestructiveSteps.unconfirmed(first.step()));
    }
    Step planned = first.step();
    Step step = DestructiveSteps.confirm(planned, plan(cluster, confirmed, first.inventory()));
    if (!step.equals(planned)) {
      LOG.info(
          "the member list read through the leader differs from the first one read (a member"
              + " lagging behind answered first): not {}; {} instead",
          planned.message(),
          step.message());
    }
    return new Planned(step, confirmed, first.inventory(), first.restore());
  }

  /** The names whose members may answer; retained volumes belong to former members. */
  private static Set<String> knownNames(EtcdCluster cluster, MemberInventory inventory) {
    Set<String> known = new HashSet<>(inventory.pods().keySet());
    known.addAll(inventory.volumes().keySet());
    var previous = cluster.getStatus();
    if (previous != null && previous.getMembers() != null) {
      previous.getMembers().forEach(m -> known.add(m.getName()));
    }
    return known;
  }

  private Step plan(EtcdCluster cluster, EtcdView view, MemberInventory inventory) {
    return MembershipPlanner.plan(
        new Observation(
            cluster.getMetadata().getName(),
            view.reachable(),
            view.members(),
            inventory.resources(),
            inventory.retained(),
            cluster.getStatus() != null && cluster.getStatus().getClusterId() != null,
            cluster.getSpec().getSize(),
            cluster.getSpec().getVersion(),
            clock.instant()));
  }
}
