package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.etcd.client.EtcdAlarm;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberResources;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EtcdClusterStatusBuilderTest {

  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:00:00Z"), ZoneOffset.UTC);
  static final ClusterRef REF = new ClusterRef("ns", "c", false, false);
  static final DesiredCondition DR =
      DesiredCondition.isFalse("DisasterRecovery", "NotConfigured", "not configured");
  final EtcdClusterStatusBuilder builder = new EtcdClusterStatusBuilder(CLOCK);

  static EtcdCluster cluster(int size) {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(
        new ObjectMetaBuilder().withName("c").withNamespace("ns").withGeneration(2L).build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setSize(size);
    spec.setVersion("3.4.23");
    c.setSpec(spec);
    return c;
  }

  static EtcdView view(ObservedMember... members) {
    return new EtcdView(true, 0xabc, List.of(members), Map.of("c-0", "3.4.23", "c-1", "3.4.23"));
  }

  static ObservedMember m(int i, boolean healthy, boolean leader, boolean learner) {
    return new ObservedMember("c-" + i, 100 + i, learner, healthy, leader, 10);
  }

  static Map<String, MemberResources> pods(String version, int n) {
    var map = new java.util.LinkedHashMap<String, MemberResources>();
    for (int i = 0; i < n; i++) {
      map.put("c-" + i, new MemberResources("c-" + i, true, true, version));
    }
    return map;
  }

  static Condition condition(EtcdClusterStatus s, String type) {
    return Conditions.find(s.getConditions(), type).orElseThrow();
  }

  @Test
  void aConvergedHealthyClusterIsReadyWithItsMembersAndRoles() {
    EtcdClusterStatus s =
        builder.build(
            cluster(2),
            REF,
            new ServiceAddressing(),
            view(m(0, true, true, false), m(1, true, false, false)),
            pods("3.4.23", 2),
            new Step.Converged(),
            DR);
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("ClusterHealthy");
    assertThat(condition(s, "Scaling").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Upgrading").getStatus()).isEqualTo("False");
    assertThat(condition(s, "QuorumLost").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");
    assertThat(s.getMembers())
        .extracting(Members::getRole)
        .containsExactly(Members.Role.LEADER, Members.Role.FOLLOWER);
    assertThat(s.getMembers().get(0).getClientURL()).isEqualTo("http://c-0.c-peer.ns.svc:2379");
    assertThat(s.getLeader()).isEqualTo("c-0");
    assertThat(s.getHealthyMembers()).isEqualTo(2);
    assertThat(s.getClusterId()).isEqualTo("abc");
    assertThat(s.getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void aLearnerMeansScalingAndNotReady() {
    EtcdClusterStatus s =
        builder.build(
            cluster(2),
            REF,
            new ServiceAddressing(),
            view(m(0, true, true, false), m(1, true, false, true)),
            pods("3.4.23", 2),
            new Step.Promote("c-1", 101),
            DR);
    assertThat(condition(s, "Ready").getReason()).isEqualTo("PromotingMember");
    assertThat(condition(s, "Scaling").getStatus()).isEqualTo("True");
    assertThat(s.getMembers().get(1).getRole()).isEqualTo(Members.Role.LEARNER);
  }

  @Test
  void quorumLossIsReportedWithItsStartTime() {
    EtcdClusterStatus s =
        builder.build(
            cluster(3),
            REF,
            new ServiceAddressing(),
            view(m(0, true, false, false), m(1, false, false, false), m(2, false, false, false)),
            pods("3.4.23", 3),
            new Step.QuorumLost("1 of 3"),
            DR);
    assertThat(condition(s, "QuorumLost").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Degraded").getReason()).isEqualTo("QuorumLost");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(s.getQuorumLostSince()).isNotNull();
    assertThat(s.getMembers())
        .extracting(Members::getRole)
        .containsOnly(Members.Role.UNKNOWN, Members.Role.FOLLOWER);
  }

  @Test
  void outdatedPodsMeanUpgrading() {
    EtcdClusterStatus s =
        builder.build(
            cluster(2),
            REF,
            new ServiceAddressing(),
            view(m(0, true, true, false), m(1, true, false, false)),
            pods("3.4.22", 2),
            new Step.Upgrade("c-1", "3.4.22", "3.4.23"),
            DR);
    assertThat(condition(s, "Upgrading").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Upgrading").getMessage()).contains("leader last", "c-0", "c-1");
  }

  @Test
  void anUnchangedObservationGivesAnIdenticalStatus() {
    EtcdCluster c = cluster(2);
    var v = view(m(0, true, true, false), m(1, true, false, false));
    EtcdClusterStatus first =
        builder.build(
            c, REF, new ServiceAddressing(), v, pods("3.4.23", 2), new Step.Converged(), DR);
    c.setStatus(first);
    EtcdClusterStatus later =
        new EtcdClusterStatusBuilder(Clock.offset(CLOCK, java.time.Duration.ofMinutes(5)))
            .build(c, REF, new ServiceAddressing(), v, pods("3.4.23", 2), new Step.Converged(), DR);
    assertThat(dev.bosun.common.status.StatusEquality.sameStatus(first, later)).isTrue();
  }

  @Test
  void blockedKeepsTheOtherConditions() {
    EtcdCluster c = cluster(2);
    c.setStatus(
        builder.build(
            c,
            REF,
            new ServiceAddressing(),
            view(m(0, true, true, false), m(1, true, false, false)),
            pods("3.4.23", 2),
            new Step.Converged(),
            DR));
    EtcdClusterStatus s = builder.blocked(c, "InvalidSpec", "invalid spec: downgrade");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("InvalidSpec");
    assertThat(condition(s, "Scaling").getReason()).isEqualTo("AtSize");
    assertThat(s.getMembers()).hasSize(2);
  }

  @Test
  void membersTheOperatorCannotSeeAreNotAQuorumLoss() {
    EtcdClusterStatus s =
        builder.build(
            cluster(3),
            REF,
            new ServiceAddressing(),
            view(m(0, true, true, false), m(1, false, false, false), m(2, false, false, false)),
            pods("3.4.23", 3),
            new Step.MembersUnseen("the operator cannot reach c-1, c-2"),
            DR);
    assertThat(condition(s, "QuorumLost").getStatus()).isEqualTo("Unknown");
    assertThat(condition(s, "QuorumLost").getReason()).isEqualTo("MembersUnreachable");
    assertThat(condition(s, "QuorumLost").getMessage()).contains("cannot reach c-1, c-2");
    assertThat(condition(s, "Degraded").getReason()).isEqualTo("MembersUnreachable");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("MembersUnreachable");
    assertThat(condition(s, "DisasterRecovery").getReason()).isEqualTo("NotConfigured");
    // The disaster recovery timer runs on evidence only.
    assertThat(s.getQuorumLostSince()).isNull();
  }

  @Test
  void membersWithoutALeaderOnTheirDataAreDegradedWithTheLikelyCausesAndStartNoClock() {
    EtcdClusterStatus s =
        builder.build(
            cluster(3),
            REF,
            new ServiceAddressing(),
            view(m(0, false, false, false), m(1, false, false, false), m(2, false, false, false)),
            pods("3.4.23", 3),
            new Step.NoLeader("cannot reach each other. Likely causes: peer TLS"),
            DR);
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NoLeader");
    assertThat(condition(s, "QuorumLost").getStatus()).isEqualTo("True");
    assertThat(condition(s, "QuorumLost").getReason()).isEqualTo("NoLeader");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Degraded").getReason()).isEqualTo("MembersCannotReachEachOther");
    assertThat(condition(s, "Degraded").getMessage()).contains("Likely causes: peer TLS");
    // Only a loss on evidence starts the disaster recovery clock.
    assertThat(s.getQuorumLostSince()).isNull();
  }

  static io.fabric8.kubernetes.api.model.Pod pod(String name, String restoredFrom) {
    var meta = new ObjectMetaBuilder().withName(name);
    if (restoredFrom != null) {
      meta.addToAnnotations(dev.bosun.etcd.EtcdOperator.RESTORED_FROM_ANNOTATION, restoredFrom);
    }
    return new io.fabric8.kubernetes.api.model.PodBuilder().withMetadata(meta.build()).build();
  }

  @Test
  void aRestoreWhoseStatusWriteWasLostIsRecordedFromItsFirstMembersPod() {
    // The operator died after creating the restored first member's Pod, before the status write
    // that said where it came from: the next operator never plans that bootstrap again.
    EtcdClusterStatus previous = new EtcdClusterStatus();
    assertThat(
            EtcdClusterStatusBuilder.restoredFrom(
                previous, null, List.of(pod("c-0", "s3://b/c/1.db"), pod("c-1", null))))
        .isEqualTo("s3://b/c/1.db");
    assertThat(EtcdClusterStatusBuilder.restoredFrom(null, null, List.of(pod("c-0", "s3://b/1"))))
        .isEqualTo("s3://b/1");
  }

  @Test
  void theRestoreOfThisRoundWinsAndARecordedOneIsKept() {
    EtcdClusterStatus previous = new EtcdClusterStatus();
    previous.setRestoredFrom("s3://b/old.db");
    assertThat(EtcdClusterStatusBuilder.restoredFrom(null, "s3://b/new.db", List.of()))
        .isEqualTo("s3://b/new.db");
    // A member Pod recreated later (an upgrade) carries no annotation: the record stays.
    assertThat(EtcdClusterStatusBuilder.restoredFrom(previous, null, List.of(pod("c-0", null))))
        .isEqualTo("s3://b/old.db");
    assertThat(EtcdClusterStatusBuilder.restoredFrom(new EtcdClusterStatus(), null, List.of()))
        .isNull();
  }

  @Test
  void aDisasterRecoveryRecordsItsNewFirstMembersSnapshotOverTheEarlierRestore() {
    EtcdClusterStatus previous = new EtcdClusterStatus();
    previous.setRestoredFrom("s3://b/old.db");
    previous.setRecoveringFrom("s3://b/new.db");
    assertThat(
            EtcdClusterStatusBuilder.restoredFrom(
                previous, null, List.of(pod("c-3", "s3://b/new.db"))))
        .isEqualTo("s3://b/new.db");
  }

  @Test
  void aNoSpaceAlarmNamesItsMemberAndTypeNeverTheAlarmRecord() {
    EtcdView full =
        new EtcdView(
            true,
            0xabc,
            List.of(m(0, true, true, false), m(1, true, false, false)),
            Map.of("c-0", "3.4.23", "c-1", "3.4.23"),
            Map.of(),
            List.of(new EtcdAlarm(100, "c-0", "NOSPACE"), new EtcdAlarm(0x1f, "", "NOSPACE")));
    EtcdClusterStatus s =
        builder.build(
            cluster(2),
            REF,
            new ServiceAddressing(),
            full,
            pods("3.4.23", 2),
            new Step.Converged(),
            DR);

    assertThat(s.getAlarms()).containsExactly("c-0:NOSPACE", "1f:NOSPACE");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NoSpace");
    assertThat(condition(s, "Degraded").getMessage())
        .startsWith("etcd raised NOSPACE (c-0:NOSPACE, 1f:NOSPACE): the database exceeded")
        .endsWith("; set spec.maintenance.recoverFromNoSpace to let the operator do it");
    assertThat(s.getConditions())
        .extracting(Condition::getType)
        .containsExactly(
            "Ready", "Scaling", "Upgrading", "QuorumLost", "Degraded", "DisasterRecovery");
    assertThat(s.getConditions())
        .allSatisfy(c -> assertThat(c.getMessage()).doesNotContainPattern("\\w+\\[\\w+="));
  }
}
