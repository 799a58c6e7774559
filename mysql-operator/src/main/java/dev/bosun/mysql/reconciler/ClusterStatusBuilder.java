package dev.bosun.mysql.reconciler;

import dev.bosun.common.status.ConditionTable;
import dev.bosun.common.status.ConditionTypes;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanText;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.execute.ContentRecord;
import dev.bosun.mysql.execute.RebuildRecord;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.Rebuilds;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.plan.StepText;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.ContentCheck;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The status of a cluster from one round of the replication loop: per-instance role, GTID, lag,
 * health; conditions Ready, Progressing, FailingOver, Degraded. Never a password.
 */
final class ClusterStatusBuilder {

  static final String READY = ConditionTypes.READY;
  static final String PROGRESSING = ConditionTypes.PROGRESSING;
  static final String FAILING_OVER = "FailingOver";
  static final String DEGRADED = ConditionTypes.DEGRADED;

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
    if (blockReason != null && previous != null && previous.getVersion() != null) {
      // A held spec changes nothing, its version included: the version recorded is what the
      // next round checks a downgrade against, so it must stay the one the cluster runs.
      s.setVersion(previous.getVersion());
    }
    writeRecord(s, rec);
    if (s.getRebuild() != null && tick.rebuildProgress() != null) {
      s.getRebuild().setProgress(tick.rebuildProgress());
    }
    InstanceState primary =
        tick.observed().stream()
            .filter(i -> i.name().equals(rec.primary()))
            .findFirst()
            .orElse(null);
    Health health = new Health();
    for (InstanceState i : tick.observed()) {
      health.add(i.name(), line(i, tick, primary, addresses, crashes));
    }
    s.setInstances(health.instances);
    s.setHealthyInstances(health.healthy);
    Facts facts =
        new Facts(
            m.replicas(),
            tick.plan().step(),
            tick.plan().errant(),
            primary,
            health,
            tick.error(),
            deferredScale,
            blockReason == null ? null : new Block(blockReason, blockMessage),
            rec.content().differing().keySet());
    s.setConditions(
        CONDITIONS.conditions(facts, previous == null ? null : previous.getConditions(), c, clock));
    return s;
  }

  /** What the conditions are decided from: one round's plan and what it saw. */
  private record Facts(
      int replicas,
      Step step,
      Set<String> errant,
      InstanceState primary,
      Health health,
      String error,
      String deferredScale,
      Block block,
      Set<String> differing) {

    boolean primaryWrites() {
      return primary != null && primary.writable();
    }

    boolean steady() {
      return step instanceof Step.Steady;
    }
  }

  /** The spec or a Secret that blocks every action but the round itself. */
  private record Block(String reason, String message) {}

  private static final ConditionTable<Facts> CONDITIONS =
      ConditionTable.<Facts>builder()
          .row(READY, ClusterStatusBuilder::ready)
          .row(PROGRESSING, ClusterStatusBuilder::progressing)
          .row(FAILING_OVER, ClusterStatusBuilder::failingOver)
          .row(DEGRADED, ClusterStatusBuilder::degraded)
          .build();

  private static DesiredCondition ready(Facts f) {
    if (f.block() != null) {
      return blockedReady(f.block());
    }
    if (f.error() != null) {
      return DesiredCondition.isFalse(READY, "StepFailed", f.error());
    }
    boolean allHealthy = f.health().healthy >= f.replicas() && f.errant().isEmpty();
    if (f.steady() && allHealthy && f.primaryWrites()) {
      return DesiredCondition.isTrue(
          READY,
          "Replicating",
          HumanText.format(
              "{} is the primary{}",
              f.primary().name(),
              f.replicas() > 1 ? "; every replica follows it with semi-sync on" : ""));
    }
    if (f.primaryWrites()) {
      return DesiredCondition.isFalse(
          READY,
          "PrimaryOnly",
          HumanText.format(
              "the primary takes writes; {}/{} instances healthy{}",
              f.health().healthy,
              f.replicas(),
              f.steady() ? "" : "; " + reasonText(f.step(), "")));
    }
    return DesiredCondition.isFalse(READY, reason(f.step()), reasonText(f.step(), "no primary"));
  }

  private static DesiredCondition progressing(Facts f) {
    if (f.block() != null) {
      return blockedProgressing(f.block());
    }
    if (f.deferredScale() != null) {
      return DesiredCondition.isTrue(PROGRESSING, "ScaleDeferred", f.deferredScale());
    }
    if (!f.steady() && !(f.step() instanceof Step.Blocked)) {
      return DesiredCondition.isTrue(
          PROGRESSING, reason(f.step()), reasonText(f.step(), "working"));
    }
    return DesiredCondition.isFalse(PROGRESSING, "Converged", "nothing to do");
  }

  private static DesiredCondition failingOver(Facts f) {
    Step step = f.step();
    boolean failingOver =
        step instanceof Step.Failover
            || (step instanceof Step.Wait w
                && ("PrimaryUnreachable".equals(w.reason())
                    || "ConfirmingPrimaryDown".equals(w.reason())
                    || "CandidateNotKnownGood".equals(w.reason())
                    || w.message().contains("before failing over")));
    return failingOver
        ? DesiredCondition.isTrue(FAILING_OVER, reason(step), reasonText(step, "failing over"))
        : noFailover();
  }

  private static DesiredCondition degraded(Facts f) {
    Health h = f.health();
    if (f.block() != null) {
      return blockedDegraded(f.block());
    }
    if (f.step() instanceof Step.Blocked b) {
      return DesiredCondition.isTrue(DEGRADED, b.reason(), b.message());
    }
    if (f.step() instanceof Step.SemiSync ss && ss.on() && f.primaryWrites()) {
      return DesiredCondition.isTrue(
          DEGRADED,
          "SemiSyncOff",
          HumanText.format(
              "semi-sync is not active on the primary {}: commits are acknowledged without a"
                  + " replica copy until a replica acknowledges again",
              f.primary().name()));
    }
    if (!f.errant().isEmpty() && f.differing().containsAll(f.errant())) {
      return DesiredCondition.isTrue(
          DEGRADED,
          "DataDiffers",
          HumanText.format(
              "the data of {} differed from the primary's after their server restarted; they are"
                  + " kept read-only and never promoted until rebuilt",
              f.errant()));
    }
    if (!f.errant().isEmpty()) {
      return DesiredCondition.isTrue(
          DEGRADED,
          "ErrantTransactions",
          HumanText.format(
              "{} hold transactions the primary does not have; they are kept read-only and never"
                  + " promoted",
              f.errant()));
    }
    if (!h.unhealthy.isEmpty() && f.primaryWrites()) {
      return DesiredCondition.isTrue(
          DEGRADED,
          "InstancesUnhealthy",
          h.problems.isEmpty()
              ? HumanText.format("{} not healthy yet", h.unhealthy)
              : String.join("; ", h.problems));
    }
    if (!h.lagging.isEmpty()) {
      return DesiredCondition.isTrue(DEGRADED, "ReplicaLagging", String.join("; ", h.lagging));
    }
    if (f.primary() != null && !f.primary().writable()) {
      return DesiredCondition.isTrue(
          DEGRADED, reason(f.step()), reasonText(f.step(), "no primary"));
    }
    return DesiredCondition.isFalse(DEGRADED, "Healthy", "every instance is healthy");
  }

  private static DesiredCondition blockedReady(Block b) {
    return DesiredCondition.isFalse(READY, b.reason(), b.message());
  }

  private static DesiredCondition blockedProgressing(Block b) {
    return DesiredCondition.isFalse(PROGRESSING, b.reason(), "waiting for the spec to be fixed");
  }

  private static DesiredCondition blockedDegraded(Block b) {
    return DesiredCondition.isTrue(DEGRADED, b.reason(), b.message());
  }

  private static DesiredCondition noFailover() {
    return DesiredCondition.isFalse(FAILING_OVER, "PrimaryAvailable", "no failover in progress");
  }

  /** The instances' lines in the status and what they add up to. */
  private static final class Health {
    final List<Instances> instances = new ArrayList<>();
    int healthy;
    final List<String> unhealthy = new ArrayList<>();
    final List<String> problems = new ArrayList<>();
    final List<String> lagging = new ArrayList<>();

    void add(String name, Line line) {
      instances.add(line.out());
      if (line.ok()) {
        healthy++;
      } else {
        unhealthy.add(name);
      }
      if (line.problem() != null) {
        (line.ok() ? lagging : problems).add(name + ": " + line.problem());
      }
    }
  }

  /**
   * One instance's line; {@code problem} is what Degraded names it for (a lag when the instance is
   * still healthy), or null.
   */
  private record Line(Instances out, boolean ok, String problem) {}

  private static Line line(
      InstanceState i,
      TopologyController.Tick tick,
      InstanceState primary,
      Map<String, Address> addresses,
      Map<String, String> crashes) {
    Instances out = new Instances();
    out.setName(i.name());
    out.setErrant(tick.plan().errant().contains(i.name()) ? Boolean.TRUE : null);
    if (!i.reachable()) {
      String why =
          crashes.containsKey(i.name())
              ? HumanText.format("unreachable: {}", crashes.get(i.name()))
              : "unreachable";
      out.setRole("unknown");
      out.setMessage(why);
      out.setHealthy(false);
      return new Line(out, false, why);
    }
    out.setReadOnly(i.readOnly());
    out.setGtid(blankToNull(i.executed()));
    if (i.name().equals(tick.record().primary())) {
      out.setRole(i.writable() ? "primary" : "fenced");
      out.setHealthy(i.writable());
      return new Line(out, i.writable(), null);
    }
    return replicaLine(out, i, tick, primary == null ? null : addresses.get(primary.name()));
  }

  private static Line replicaLine(
      Instances out, InstanceState i, TopologyController.Tick tick, Address source) {
    boolean following = source != null && i.replicatesFrom(source);
    boolean errant = tick.plan().errant().contains(i.name());
    boolean ok = following && !errant;
    out.setRole(following ? "replica" : "fenced");
    out.setLagSeconds(following ? i.lagSeconds() : null);
    out.setHealthy(ok);
    RebuildRecord rebuild = tick.record().rebuild();
    String problem = ReplicaHealth.problem(i, source);
    if (rebuild != null
        && !RebuildRecord.REBUILT.equals(rebuild.phase())
        && i.name().equals(rebuild.member())) {
      out.setMessage(
          RebuildRecord.COPYING.equals(rebuild.phase())
              ? HumanText.format("being rebuilt from {}", rebuild.source())
              : "its rebuild failed; kept out of the cluster");
      return new Line(out, ok, null);
    }
    String differs = tick.record().content().differing().get(i.name());
    if (errant && differs != null) {
      out.setMessage(
          HumanText.format(
              "its data differed from the primary's after its server restarted ({}); never"
                  + " promoted: rebuild it with the annotation {}={} or set"
                  + " spec.replication.rebuild: Automatic",
              differs,
              Rebuilds.REQUEST_ANNOTATION,
              i.name()));
      return new Line(out, ok, null);
    }
    if (errant) {
      out.setMessage(
          HumanText.format(
              "holds transactions the primary does not have; never promoted: rebuild it with the"
                  + " annotation {}={} (its errant transactions are exported first) or set"
                  + " spec.replication.rebuild: Automatic",
              Rebuilds.REQUEST_ANNOTATION,
              i.name()));
      return new Line(out, ok, null);
    }
    out.setMessage(problem);
    return new Line(out, ok, problem);
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
    Block block = new Block(reason, message);
    s.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            List.of(
                blockedReady(block),
                blockedProgressing(block),
                noFailover(),
                blockedDegraded(block)),
            Conditions.generationOf(c),
            clock));
    return s;
  }

  /** Puts the topology record into a status (also used to store an intent mid-step). */
  /** The record's data comparisons as status; null while nothing is known. */
  private static ContentCheck contentStatus(ContentRecord c) {
    if (c.verifiedStarts().isEmpty() && c.differing().isEmpty() && c.last() == null) {
      return null;
    }
    ContentCheck out = new ContentCheck();
    out.setVerifiedStarts(new TreeMap<>(c.verifiedStarts()));
    out.setDiffering(c.differing().isEmpty() ? null : new TreeMap<>(c.differing()));
    out.setLast(c.last());
    out.setLastTime(c.lastAt() == null ? null : c.lastAt().atZone(ZoneOffset.UTC));
    return out;
  }

  static void writeRecord(MySQLClusterStatus s, TopologyRecord rec) {
    s.setPrimary(rec.primary());
    s.setPreviousPrimary(rec.previousPrimary());
    s.setPromotionGtid(blankToNull(rec.promotionGtid()));
    s.setRestoredFrom(rec.restoredFrom());
    s.setLastFailoverTime(
        rec.lastFailoverTime() == null ? null : rec.lastFailoverTime().atZone(ZoneOffset.UTC));
    s.setRebuild(rebuildStatus(rec.rebuild()));
    s.setContentCheck(contentStatus(rec.content()));
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
