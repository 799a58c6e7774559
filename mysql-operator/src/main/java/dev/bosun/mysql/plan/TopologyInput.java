package dev.bosun.mysql.plan;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the planner decides from: the spec's wishes, what the status remembers and what was
 * just observed.
 *
 * @param desiredInstances the number of instances the spec asks for
 * @param instances one observation per existing instance (reachable or not), by ordinal
 * @param addresses where each instance answers (to recognise replication sources)
 * @param recordedPrimary the primary the status names, or null
 * @param previousPrimary the primary before the last failover or switchover, or null
 * @param promotionGtid the executed position of the primary when it was promoted, or null
 * @param knownErrant instances recorded as holding errant transactions
 * @param failoverEnabled whether the operator may replace an unreachable primary
 * @param primaryUnreachableFor how long the recorded primary has been unreachable (zero if it is)
 * @param failoverAfter the spec's detection timeout
 * @param switchoverTarget the spec's manual switchover target, or null
 * @param restore where loading fromBackup into the primary stands
 * @param intent a promotion recorded in status and not known to be finished, or null
 * @param rebuild what may be rebuilt, and the rebuild under way
 * @param content what is known of the members' data since their servers last started
 */
public record TopologyInput(
    int desiredInstances,
    List<InstanceState> instances,
    Map<String, Address> addresses,
    String recordedPrimary,
    String previousPrimary,
    String promotionGtid,
    Set<String> knownErrant,
    boolean failoverEnabled,
    Duration primaryUnreachableFor,
    Duration failoverAfter,
    String switchoverTarget,
    RestoreState restore,
    PromotionIntent intent,
    RebuildPolicy rebuild,
    ContentState content) {

  /** An input without content checks. */
  public TopologyInput(
      int desiredInstances,
      List<InstanceState> instances,
      Map<String, Address> addresses,
      String recordedPrimary,
      String previousPrimary,
      String promotionGtid,
      Set<String> knownErrant,
      boolean failoverEnabled,
      Duration primaryUnreachableFor,
      Duration failoverAfter,
      String switchoverTarget,
      RestoreState restore,
      PromotionIntent intent,
      RebuildPolicy rebuild) {
    this(
        desiredInstances,
        instances,
        addresses,
        recordedPrimary,
        previousPrimary,
        promotionGtid,
        knownErrant,
        failoverEnabled,
        primaryUnreachableFor,
        failoverAfter,
        switchoverTarget,
        restore,
        intent,
        rebuild,
        ContentState.none());
  }

  /** An input without rebuilds (Manual, nothing requested). */
  public TopologyInput(
      int desiredInstances,
      List<InstanceState> instances,
      Map<String, Address> addresses,
      String recordedPrimary,
      String previousPrimary,
      String promotionGtid,
      Set<String> knownErrant,
      boolean failoverEnabled,
      Duration primaryUnreachableFor,
      Duration failoverAfter,
      String switchoverTarget,
      RestoreState restore,
      PromotionIntent intent) {
    this(
        desiredInstances,
        instances,
        addresses,
        recordedPrimary,
        previousPrimary,
        promotionGtid,
        knownErrant,
        failoverEnabled,
        primaryUnreachableFor,
        failoverAfter,
        switchoverTarget,
        restore,
        intent,
        RebuildPolicy.manual());
  }

  /** Whether semi-sync belongs on the primary: only when replicas are wanted. */
  public boolean withReplicas() {
    return desiredInstances > 1;
  }
}
