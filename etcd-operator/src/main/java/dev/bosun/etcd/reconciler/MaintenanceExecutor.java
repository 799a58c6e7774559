package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.etcd.client.EtcdAlarm;
import dev.bosun.etcd.client.EtcdException;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.maintenance.MaintenanceStep;
import dev.bosun.etcd.maintenance.NoSpaceQuota;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Defragmentation;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.defragmentation.Members;
import java.net.URI;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a maintenance step against etcd, each action an Event: a member's defragmentation
 * (its database size before and after into the round's status), or the NOSPACE recovery (compact to
 * the current revision, defragment every member, disarm the alarms). A refusal or timeout is an
 * Event and a later retry, never a storm.
 */
final class MaintenanceExecutor {

  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceExecutor.class);

  /** Degraded's reason, and the Event's, when a NOSPACE recovery cannot get under the quota. */
  static final String NO_SPACE_STOPPED = "NoSpaceRecoveryStopped";

  private final EtcdMembership etcd;
  private final MemberAddressing addressing;
  private final EventRecorder events;

  MaintenanceExecutor(EtcdMembership etcd, MemberAddressing addressing, EventRecorder events) {
    this.etcd = etcd;
    this.addressing = addressing;
    this.events = events;
  }

  /**
   * What a step came to: whether it did something (look again soon), and the sentence when a
   * NOSPACE recovery stopped short of the quota.
   */
  record Result(boolean acted, Optional<String> noSpaceStopped) {
    static final Result NOTHING = new Result(false, Optional.empty());
  }

  Result execute(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdView view,
      MaintenanceStep step,
      Defragmentation round,
      ZonedDateTime now,
      long quota) {
    try {
      if (step instanceof MaintenanceStep.Defragment d) {
        Members done = defragment(cluster, ref, view, d.member());
        if (round.getStartedAt() == null || round.getFinishedAt() != null) {
          round.setStartedAt(now);
          round.setFinishedAt(null);
          round.setMembers(new ArrayList<>());
        }
        List<Members> members = new ArrayList<>(round.getMembers());
        members.add(done);
        round.setMembers(members);
        if (d.last()) {
          round.setFinishedAt(now);
          say(cluster, "DefragmentationFinished", "defragmented " + summary(members));
        }
        return new Result(true, Optional.empty());
      }
      if (step instanceof MaintenanceStep.RecoverNoSpace r) {
        return new Result(true, recoverNoSpace(cluster, ref, view, r, quota));
      }
    } catch (EtcdException e) {
      String message = "maintenance was refused by etcd, retrying later: " + e.getMessage();
      LOG.warn(message);
      events.warning(cluster, "MaintenanceFailed", message);
    }
    return Result.NOTHING;
  }

  private Members defragment(EtcdCluster cluster, ClusterRef ref, EtcdView view, String member) {
    Long before = view.dbSizes().get(member);
    long after = etcd.defragment(addressing.clientUrl(ref, member));
    Members m = new Members();
    m.setName(member);
    m.setDbSizeBefore(before);
    m.setDbSizeAfter(after);
    say(
        cluster,
        "Defragmented",
        "defragmented " + member + ": database " + before + " -> " + after + " bytes");
    return m;
  }

  /** Compacts, defragments and, when that got under the quota, disarms; else says why not. */
  private Optional<String> recoverNoSpace(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdView view,
      MaintenanceStep.RecoverNoSpace r,
      long quota) {
    URI leader = addressing.clientUrl(ref, r.leader());
    long revision = etcd.revision(leader);
    etcd.compact(leader, revision);
    say(cluster, "Compacted", "NOSPACE recovery: compacted the key space to revision " + revision);
    List<Members> done = new ArrayList<>();
    for (String member : r.order()) {
      done.add(defragment(cluster, ref, view, member));
    }
    Map<String, Long> after = new LinkedHashMap<>();
    done.forEach(m -> after.put(m.getName(), m.getDbSizeAfter()));
    if (!NoSpaceQuota.fits(after, quota)) {
      String message = NoSpaceQuota.stopped(after, quota);
      LOG.warn(message);
      events.warning(cluster, NO_SPACE_STOPPED, message);
      return Optional.of(message);
    }
    for (EtcdAlarm a : r.alarms()) {
      etcd.disarm(leader, a.memberId(), a.type());
      say(cluster, "AlarmDisarmed", "NOSPACE recovery: disarmed alarm " + a);
    }
    say(cluster, "NoSpaceRecovered", "NOSPACE recovered; " + summary(done));
    return Optional.empty();
  }

  private static String summary(List<Members> members) {
    return String.join(
        ", ",
        members.stream()
            .map(m -> m.getName() + " " + m.getDbSizeBefore() + " -> " + m.getDbSizeAfter())
            .toList());
  }

  private void say(EtcdCluster cluster, String reason, String message) {
    LOG.info("{}: {}", reason, message);
    events.normal(cluster, reason, message);
  }
}
