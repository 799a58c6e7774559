package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdException;
import dev.bosun.etcd.client.EtcdMember;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.objects.MemberPods;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.objects.Owners;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSecrets;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out one planned step: the etcd call first (through the leader, which every membership
 * change goes through anyway), then the Kubernetes objects. A refusal by etcd (for example
 * "unhealthy cluster" in the seconds after a change) turns into a wait, never into a retry storm.
 */
public final class StepExecutor {

  private static final Logger LOG = LoggerFactory.getLogger(StepExecutor.class);

  /** What became of a step. */
  public record Outcome(boolean done, Step step) {}

  private final KubernetesClient client;
  private final EtcdMembership etcd;
  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final String operatorImage;
  private final Applier<EtcdCluster> applier;

  public StepExecutor(
      KubernetesClient client,
      EtcdMembership etcd,
      MemberAddressing addressing,
      EventRecorder events,
      String operatorImage) {
    this.client = client;
    this.etcd = etcd;
    this.addressing = addressing;
    this.events = events;
    this.operatorImage = operatorImage;
    // Steps are rare: the live objects they write are read from the server, not a cache.
    this.applier = ChildApplier.of(client, ChildCache.none());
  }

  public Outcome execute(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdView view,
      MemberInventory inventory,
      Step step,
      Optional<RestoreSource> restore) {
    if (!step.changes()) {
      return new Outcome(false, step);
    }
    try {
      if (step instanceof Step.Bootstrap b) {
        bootstrap(cluster, ref, b.member(), restore);
      } else if (step instanceof Step.RecreatePods r) {
        if (recreate(cluster, ref, view, inventory, r.members()) == 0) {
          return new Outcome(false, podsTerminating(r.members()));
        }
      } else if (step instanceof Step.ResumeCluster c) {
        if (recreate(cluster, ref, view, inventory, c.members()) == 0) {
          return new Outcome(false, podsTerminating(c.members()));
        }
      } else if (step instanceof Step.AddLearner a) {
        addLearner(cluster, ref, view, a.member());
      } else if (step instanceof Step.ResumeLearner l) {
        resumeLearner(cluster, ref, view, l.member());
      } else if (step instanceof Step.Promote p) {
        promote(cluster, ref, view, p);
      } else if (step instanceof Step.MoveLeader m) {
        etcd.moveLeader(addressing.clientUrl(ref, m.from()), m.toId());
      } else if (step instanceof Step.RemoveMember r) {
        remove(cluster, ref, view, inventory, r);
      } else if (step instanceof Step.DeleteResources d) {
        cleanUp(cluster, inventory, d.member(), true);
      } else if (step instanceof Step.Upgrade u) {
        deletePod(cluster, u.member());
      } else {
        throw new IllegalStateException("not a change: " + step);
      }
    } catch (EtcdException e) {
      Step deferred =
          new Step.Wait(
              "EtcdRefused", step.message() + " was refused by etcd, retrying: " + e.getMessage());
      LOG.info("{}: {}", step.reason(), deferred.message());
      return new Outcome(false, deferred);
    } catch (Applier.ForeignObjectException e) {
      // A member's Pod or volume name, or the restore Secret's, is taken: nothing of it is written
      // over.
      Step deferred = new Step.Wait("ResourceConflict", e.getMessage());
      LOG.warn("{}: {}", step.reason(), deferred.message());
      return new Outcome(false, deferred);
    }
    LOG.info("{}: {}", step.reason(), step.message());
    events.normal(cluster, step.reason(), step.message());
    return new Outcome(true, step);
  }

  private static Step podsTerminating(List<String> members) {
    return new Step.Wait(
        "WaitingForPodDeletion",
        "the old Pods of " + String.join(", ", members) + " are still terminating");
  }

  private void bootstrap(
      EtcdCluster cluster, ClusterRef ref, String member, Optional<RestoreSource> restore)
      throws Applier.ForeignObjectException {
    Map<String, URI> initial = Map.of(member, addressing.peerUrl(ref, member));
    createVolume(cluster, member);
    Pod pod =
        MemberPods.desired(cluster, ref, addressing, member, initial, MemberPods.State.NEW, true);
    if (restore.isPresent()) {
      if (restore.get() instanceof RestoreSource.Volume volume) {
        authorise(cluster, volume);
      }
      pod =
          MemberPods.withRestore(
              pod, cluster, ref, addressing, member, restore.get(), operatorImage);
      events.normal(
          cluster,
          "Restoring",
          member
              + " starts from snapshot "
              + restore.get().location()
              + " of EtcdBackup "
              + restore.get().backup());
    }
    create(cluster, pod);
  }

  /**
   * Writes the cluster's restore Secret before its first Pod exists: a new token, the CA its fetch
   * container trusts, and the one snapshot it may fetch from the operator. A restore Secret of an
   * earlier restore is replaced.
   */
  private void authorise(EtcdCluster cluster, RestoreSource.Volume source)
      throws Applier.ForeignObjectException {
    Secret secret =
        RestoreSecrets.desired(cluster, source.key(), RestoreSecrets.newToken(), source.caBundle());
    secret.getMetadata().setOwnerReferences(Owners.of(cluster));
    // A new token each time: always written. A Secret of that name the cluster does not control is
    // refused, never overwritten.
    applier.apply(cluster, secret);
  }

  private int recreate(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdView view,
      MemberInventory inventory,
      List<String> members)
      throws Applier.ForeignObjectException {
    Map<String, URI> initial = new LinkedHashMap<>();
    if (view.reachable()) {
      for (ObservedMember m : view.members()) {
        if (!m.name().isEmpty()) {
          initial.put(m.name(), addressing.peerUrl(ref, m.name()));
        }
      }
    } else {
      for (String name : inventory.withVolumes()) {
        initial.put(name, addressing.peerUrl(ref, name));
      }
    }
    int created = 0;
    for (String member : members) {
      if (inventory.podExists(member)) {
        // The old Pod is still terminating; the next reconcile creates the new one.
        continue;
      }
      boolean voter =
          view.members().stream()
              .filter(m -> m.name().equals(member))
              .findFirst()
              .map(ObservedMember::voter)
              .orElse(true);
      initial.putIfAbsent(member, addressing.peerUrl(ref, member));
      createPod(cluster, ref, member, initial, MemberPods.State.EXISTING, voter);
      created++;
    }
    return created;
  }

  private void addLearner(EtcdCluster cluster, ClusterRef ref, EtcdView view, String member)
      throws Applier.ForeignObjectException {
    URI via = leaderEndpoint(ref, view);
    URI peerUrl = addressing.peerUrl(ref, member);
    EtcdMembership.AddedMember added = etcd.addLearner(via, peerUrl);
    Map<String, URI> initial = new LinkedHashMap<>();
    Map<Long, String> names = new LinkedHashMap<>();
    view.members().forEach(m -> names.put(m.id(), m.name()));
    for (EtcdMember m : added.members()) {
      String name =
          m.id() == added.member().id()
              ? member
              : m.name().isEmpty() ? names.get(m.id()) : m.name();
      if (name != null && !name.isEmpty() && !m.peerUrls().isEmpty()) {
        initial.put(name, m.peerUrls().get(0));
      }
    }
    createVolume(cluster, member);
    createPod(cluster, ref, member, initial, MemberPods.State.EXISTING, false);
  }

  /**
   * The second half of {@link #addLearner}, for a learner etcd already lists: its peers are every
   * named member, itself included, at the addresses the addressing gives them.
   */
  private void resumeLearner(EtcdCluster cluster, ClusterRef ref, EtcdView view, String member)
      throws Applier.ForeignObjectException {
    Map<String, URI> initial = new LinkedHashMap<>();
    for (ObservedMember m : view.members()) {
      if (!m.name().isEmpty()) {
        initial.put(m.name(), addressing.peerUrl(ref, m.name()));
      }
    }
    createVolume(cluster, member);
    createPod(cluster, ref, member, initial, MemberPods.State.EXISTING, false);
  }

  private void promote(EtcdCluster cluster, ClusterRef ref, EtcdView view, Step.Promote p) {
    etcd.promote(leaderEndpoint(ref, view), p.id());
    markVoter(cluster, p.member());
  }

  /** Puts a promoted member behind the client Service. */
  void markVoter(EtcdCluster cluster, String member) {
    try {
      client
          .pods()
          .inNamespace(cluster.getMetadata().getNamespace())
          .withName(member)
          .edit(
              p -> {
                p.getMetadata().getLabels().put(EtcdOperator.VOTER_LABEL, "true");
                return p;
              });
    } catch (KubernetesClientException e) {
      // The Pod is gone; its replacement is labelled from the membership when created.
      LOG.info("could not label {} as a voter: {}", member, e.getMessage());
    }
  }

  private void remove(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdView view,
      MemberInventory inventory,
      Step.RemoveMember r) {
    etcd.remove(leaderEndpoint(ref, view), r.id());
    if (!r.member().isEmpty() && inventory.names().contains(r.member())) {
      cleanUp(cluster, inventory, r.member(), r.cause() == Step.RemovalCause.ScaleDown);
    }
  }

  /**
   * Deletes the Pod of a member that left the cluster (its process exits by itself and would loop
   * otherwise) and deals with its volume by the retention policy, saying so in an Event.
   */
  private void cleanUp(
      EtcdCluster cluster, MemberInventory inventory, String member, boolean byPolicy) {
    deletePod(cluster, member);
    PersistentVolumeClaim volume = inventory.volumes().get(member);
    if (volume == null) {
      return;
    }
    String ns = cluster.getMetadata().getNamespace();
    String claim = volume.getMetadata().getName();
    if (!byPolicy || MemberVolumes.deleteWhenScaledDown(cluster)) {
      client.persistentVolumeClaims().inNamespace(ns).withName(claim).delete();
      events.normal(
          cluster,
          "VolumeDeleted",
          "deleted volume "
              + claim
              + " of former member "
              + member
              + " (storage.whenScaledDown=Delete)");
    } else {
      client
          .persistentVolumeClaims()
          .inNamespace(ns)
          .withName(claim)
          .edit(
              v -> {
                v.getMetadata().getLabels().put(EtcdOperator.RETAINED_LABEL, "true");
                v.getMetadata().setOwnerReferences(List.of());
                return v;
              });
      events.normal(
          cluster,
          "VolumeRetained",
          "kept volume "
              + claim
              + " of former member "
              + member
              + " (storage.whenScaledDown=Retain); it is never reused, delete it when done");
    }
  }

  private void deletePod(EtcdCluster cluster, String member) {
    client.pods().inNamespace(cluster.getMetadata().getNamespace()).withName(member).delete();
  }

  private void createVolume(EtcdCluster cluster, String member)
      throws Applier.ForeignObjectException {
    // An existing volume of the member is used as it is (a claim's spec cannot change).
    applier.create(cluster, MemberVolumes.desired(cluster, member));
  }

  private void createPod(
      EtcdCluster cluster,
      ClusterRef ref,
      String member,
      Map<String, URI> initial,
      MemberPods.State state,
      boolean voter)
      throws Applier.ForeignObjectException {
    create(cluster, MemberPods.desired(cluster, ref, addressing, member, initial, state, voter));
  }

  private void create(EtcdCluster cluster, Pod pod) throws Applier.ForeignObjectException {
    pod.getMetadata().setOwnerReferences(Owners.of(cluster));
    applier.create(cluster, pod);
  }

  private URI leaderEndpoint(ClusterRef ref, EtcdView view) {
    ObservedMember leader =
        view.leader().orElseThrow(() -> new EtcdException("no leader to send the change to", null));
    return addressing.clientUrl(ref, leader.name());
  }
}
