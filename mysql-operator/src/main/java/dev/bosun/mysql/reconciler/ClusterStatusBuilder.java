package dev.bosun.mysql.reconciler;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.Flavour;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.InstanceState;
import dev.bosun.mysql.topology.Rebuilds;
import dev.bosun.mysql.topology.Step;
import dev.bosun.mysql.topology.StepText;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import dev.bosun.mysql.workload.RebuildRecord;
import dev.bosun.mysql.workload.TopologyController;
import dev.bosun.mysql.workload.TopologyRecord;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The status of a cluster from one round of the replication loop: per-instance role, GTID, lag,
 * health; conditions Ready, Progressing, FailingOver, Degraded. Never a password.
 */
final class ClusterStatusBuilder {

  static final String READY = "Ready";
  static final String PROGRESSING = "Progressing";
  static final String FAILING_OVER = "FailingOver";
  static final String DEGRADED = "Degraded";

  private final Clock clock;

  ClusterStatusBuilder(Clock clock) {
    this.clock = clock;
  }

  /** The status after a round; {@code deferredScale} names a replicas change being held back. */
  MySQLClusterStatus build(
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses,
      String deferredScale) {
    return build(c, m, tick, addresses, deferredScale, Map.of());
  }

  /**
   * The same, with why members that do not answer are down, by Pod name ({@link ServerCrashes}).
   */
  MySQLClusterStatus build(
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses,
      String deferredScale,
      Map<String, String> crashes) {
    return build(c, m, tick, addresses, deferredScale, null, null, crashes);
  }

  /**
   * The status after a round that ran although the spec or a Secret blocks every other action:
   * instances, topology and FailingOver from the round; Ready, Progressing and Degraded name the
   * block.
   */
  MySQLClusterStatus blockedAfterRound(
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses,
      String reason,
      String message) {
    return build(c, m, tick, addresses, null, reason, message, Map.of());
  }

  private MySQLClusterStatus build(
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses,
      String deferredScale,
      String blockReason,
      String blockMessage,
      Map<String, String> crashes) {
    MySQLClusterStatus previous = c.getStatus();
    TopologyRecord rec = tick.record();
    MySQLClusterStatus s = base(c, m, previous);
    writeRecord(s, rec);
    if (s.getRebuild() != null && tick.rebuildProgress() != null) {
      s.getRebuild().setProgress(tick.rebuildProgress());
    }
    String rebuilding =
        rec.rebuild() != null && !RebuildRecord.REBUILT.equals(rec.rebuild().phase())
            ? rec.rebuild().member()
            : null;
    Set<String> errant = tick.plan().errant();
    InstanceState primary =
        tick.observed().stream()
            .filter(i -> i.name().equals(rec.primary()))
            .findFirst()
            .orElse(null);
    List<Instances> instances = new ArrayList<>();
    int healthy = 0;
    List<String> unhealthy = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<String> lagging = new ArrayList<>();
    for (InstanceState i : tick.observed()) {
      Instances out = new Instances();
      out.setName(i.name());
      out.setErrant(errant.contains(i.name()) ? Boolean.TRUE : null);
      boolean isPrimary = i.name().equals(rec.primary());
      boolean ok;
      if (!i.reachable()) {
        String why =
            crashes.containsKey(i.name()) ? "unreachable: " + crashes.get(i.name()) : "unreachable";
        out.setRole("unknown");
        out.setMessage(why);
        problems.add(i.name() + ": " + why);
        ok = false;
      } else {
        out.setReadOnly(i.readOnly());
        out.setGtid(blankToNull(i.executed()));
        if (isPrimary) {
          out.setRole(i.writable() ? "primary" : "fenced");
          ok = i.writable();
        } else {
          Address source = primary == null ? null : addresses.get(primary.name());
          boolean following = source != null && i.replicatesFrom(source);
          out.setRole(following ? "replica" : "fenced");
          out.setLagSeconds(following ? i.lagSeconds() : null);
          ok = following && !errant.contains(i.name());
          String problem = ReplicaHealth.problem(i, source);
          if (i.name().equals(rebuilding)) {
            out.setMessage(
                RebuildRecord.COPYING.equals(rec.rebuild().phase())
                    ? "being rebuilt from " + rec.rebuild().source()
                    : "its rebuild failed; kept out of the cluster");
          } else if (errant.contains(i.name())) {
            out.setMessage(
                "holds transactions the primary does not have; never promoted: rebuild it with"
                    + " the annotation "
                    + Rebuilds.REQUEST_ANNOTATION
                    + "="
                    + i.name()
                    + " (its errant transactions are exported first) or set"
                    + " spec.replication.rebuild: Automatic");
          } else if (problem != null) {
            out.setMessage(problem);
            if (ok) {
              lagging.add(i.name() + ": " + problem);
            } else {
              problems.add(i.name() + ": " + problem);
            }
          }
        }
      }
      out.setHealthy(ok);
      if (ok) {
        healthy++;
      } else {
        unhealthy.add(i.name());
      }
      instances.add(out);
    }
    s.setInstances(instances);
    s.setHealthyInstances(healthy);

    Step step = tick.plan().step();
    boolean steady = step instanceof Step.Steady;
    boolean failingOver =
        step instanceof Step.Failover
            || (step instanceof Step.Wait w && "PrimaryUnreachable".equals(w.reason()))
            || (step instanceof Step.Wait w2 && w2.message().contains("before failing over"));
    List<DesiredCondition> conds = new ArrayList<>();
    boolean allHealthy = healthy >= m.replicas() && errant.isEmpty();
    if (tick.error() != null) {
      conds.add(DesiredCondition.isFalse(READY, "StepFailed", tick.error()));
    } else if (steady && allHealthy && primary != null && primary.writable()) {
      conds.add(
          DesiredCondition.isTrue(
              READY,
              "Replicating",
              rec.primary()
                  + " is the primary"
                  + (m.replicas() > 1 ? "; every replica follows it with semi-sync on" : "")));
    } else if (primary != null && primary.writable()) {
      conds.add(
          DesiredCondition.isFalse(
              READY,
              "PrimaryOnly",
              "the primary takes writes; "
                  + healthy
                  + "/"
                  + m.replicas()
                  + " instances healthy"
                  + (step instanceof Step.Steady ? "" : "; " + reasonText(step, ""))));
    } else {
      conds.add(DesiredCondition.isFalse(READY, reason(step), reasonText(step, "no primary")));
    }
    if (deferredScale != null) {
      conds.add(DesiredCondition.isTrue(PROGRESSING, "ScaleDeferred", deferredScale));
    } else if (!steady && !(step instanceof Step.Blocked)) {
      conds.add(DesiredCondition.isTrue(PROGRESSING, reason(step), reasonText(step, "working")));
    } else {
      conds.add(DesiredCondition.isFalse(PROGRESSING, "Converged", "nothing to do"));
    }
    conds.add(
        failingOver
            ? DesiredCondition.isTrue(FAILING_OVER, reason(step), reasonText(step, "failing over"))
            : DesiredCondition.isFalse(
                FAILING_OVER, "PrimaryAvailable", "no failover in progress"));
    if (step instanceof Step.Blocked b) {
      conds.add(DesiredCondition.isTrue(DEGRADED, b.reason(), b.message()));
    } else if (step instanceof Step.SemiSync ss
        && ss.on()
        && primary != null
        && primary.writable()) {
      conds.add(
          DesiredCondition.isTrue(
              DEGRADED,
              "SemiSyncOff",
              "semi-sync is not active on the primary "
                  + primary.name()
                  + ": commits are acknowledged without a replica copy until a replica"
                  + " acknowledges again"));
    } else if (!errant.isEmpty()) {
      conds.add(
          DesiredCondition.isTrue(
              DEGRADED,
              "ErrantTransactions",
              String.join(", ", errant)
                  + " hold transactions the primary does not have; they are kept read-only and"
                  + " never promoted"));
    } else if (!unhealthy.isEmpty() && primary != null && primary.writable()) {
      conds.add(
          DesiredCondition.isTrue(
              DEGRADED,
              "InstancesUnhealthy",
              problems.isEmpty()
                  ? String.join(", ", unhealthy) + " not healthy yet"
                  : String.join("; ", problems)));
    } else if (!lagging.isEmpty()) {
      conds.add(DesiredCondition.isTrue(DEGRADED, "ReplicaLagging", String.join("; ", lagging)));
    } else if (primary != null && !primary.writable()) {
      conds.add(DesiredCondition.isTrue(DEGRADED, reason(step), reasonText(step, "no primary")));
    } else {
      conds.add(DesiredCondition.isFalse(DEGRADED, "Healthy", "every instance is healthy"));
    }
    if (blockReason != null) {
      conds.removeIf(d -> !d.type().equals(FAILING_OVER));
      conds.add(DesiredCondition.isFalse(READY, blockReason, blockMessage));
      conds.add(
          DesiredCondition.isFalse(PROGRESSING, blockReason, "waiting for the spec to be fixed"));
      conds.add(DesiredCondition.isTrue(DEGRADED, blockReason, blockMessage));
    }
    s.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            conds,
            c.getMetadata().getGeneration() == null ? 0 : c.getMetadata().getGeneration(),
            clock));
    return s;
  }

  /** The status of a cluster whose spec or Secrets block every action. */
  MySQLClusterStatus blocked(MySQLCluster c, ClusterModel m, String reason, String message) {
    MySQLClusterStatus previous = c.getStatus();
    MySQLClusterStatus s = base(c, m, previous);
    if (previous != null) {
      s.setPrimary(previous.getPrimary());
      s.setPreviousPrimary(previous.getPreviousPrimary());
      s.setPromotionGtid(previous.getPromotionGtid());
      s.setRestoredFrom(previous.getRestoredFrom());
      s.setPromotionIntent(previous.getPromotionIntent());
      s.setRebuild(previous.getRebuild());
      s.setLastFailoverTime(previous.getLastFailoverTime());
      s.setInstances(previous.getInstances());
      s.setHealthyInstances(previous.getHealthyInstances());
      s.setVersion(previous.getVersion());
    }
    s.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            List.of(
                DesiredCondition.isFalse(READY, reason, message),
                DesiredCondition.isFalse(PROGRESSING, reason, "waiting for the spec to be fixed"),
                DesiredCondition.isFalse(
                    FAILING_OVER, "PrimaryAvailable", "no failover in progress"),
                DesiredCondition.isTrue(DEGRADED, reason, message)),
            c.getMetadata().getGeneration() == null ? 0 : c.getMetadata().getGeneration(),
            clock));
    return s;
  }

  /** Puts the topology record into a status (also used to store an intent mid-step). */
  static void writeRecord(MySQLClusterStatus s, TopologyRecord rec) {
    s.setPrimary(rec.primary());
    s.setPreviousPrimary(rec.previousPrimary());
    s.setPromotionGtid(blankToNull(rec.promotionGtid()));
    s.setRestoredFrom(rec.restoredFrom());
    s.setLastFailoverTime(
        rec.lastFailoverTime() == null ? null : rec.lastFailoverTime().atZone(ZoneOffset.UTC));
    s.setRebuild(rebuildStatus(rec.rebuild()));
    if (rec.intent() == null) {
      s.setPromotionIntent(null);
    } else {
      var intent = new dev.bosun.mysql.v1alpha1.mysqlclusterstatus.PromotionIntent();
      intent.setCandidate(rec.intent().candidate());
      intent.setFrom(rec.intent().from());
      intent.setPoint(blankToNull(rec.intent().point()));
      s.setPromotionIntent(intent);
    }
  }

  private static dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Rebuild rebuildStatus(
      RebuildRecord r) {
    if (r == null) {
      return null;
    }
    var out = new dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Rebuild();
    out.setMember(r.member());
    out.setSource(r.source());
    out.setReason(r.reason());
    out.setPhase(r.phase());
    out.setStartedAt(r.startedAt() == null ? null : r.startedAt().atZone(ZoneOffset.UTC));
    out.setFinishedAt(r.finishedAt() == null ? null : r.finishedAt().atZone(ZoneOffset.UTC));
    out.setSeconds(r.took() == null ? null : r.took().toSeconds());
    out.setErrantTransactions(r.errantTransactions());
    out.setMessage(r.message());
    return out;
  }

  private static MySQLClusterStatus base(
      MySQLCluster c, ClusterModel m, MySQLClusterStatus previous) {
    MySQLClusterStatus s = new MySQLClusterStatus();
    s.setObservedGeneration(c.getMetadata().getGeneration());
    s.setFlavour(
        previous != null && previous.getFlavour() != null
            ? previous.getFlavour()
            : m.flavour() == Flavour.MARIADB ? "MariaDB" : "MySQL");
    s.setVersion(m.version());
    return s;
  }

  /**
   * Empty strings are left out: a 1.20 server's apply turns them into nulls, which a string field
   * refuses.
   */
  static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  static String reason(Step step) {
    return StepText.reason(step);
  }

  static String reasonText(Step step, String otherwise) {
    return StepText.sentence(step, otherwise);
  }
}
