package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.Conditions;
import dev.bosun.mysql.execute.ContentRecord;
import dev.bosun.mysql.execute.Outcome;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterObjectsTest;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Instance;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.Plan;
import dev.bosun.mysql.plan.Rebuilds;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Status and conditions from one round of the replication loop. */
class ClusterStatusBuilderTest {

  private final ClusterStatusBuilder builder =
      new ClusterStatusBuilder(Clock.fixed(Instant.parse("2026-11-22T18:00:00Z"), ZoneOffset.UTC));
  private final Map<String, Address> addresses =
      Map.of(
          "db-0", new Address("127.0.0.1", 3300),
          "db-1", new Address("127.0.0.1", 3301));

  static InstanceState primary(boolean semiSync) {
    return Instance.primary("db-0", 0, "0-1-5").semiSyncSourceOn(semiSync).build();
  }

  static InstanceState replica() {
    return Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300).lagSeconds(2L).build();
  }

  private MySQLClusterStatus build(Step step, Set<String> errant, InstanceState... observed) {
    return build(new TopologyRecord("db-0", null, "", null, null, null), step, errant, observed);
  }

  private MySQLClusterStatus build(
      TopologyRecord rec, Step step, Set<String> errant, InstanceState... observed) {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(2);
    MySQLCluster c = ClusterObjectsTest.cluster(spec);
    c.getMetadata().setGeneration(3L);
    var tick =
        new TopologyController.Tick(
            List.of(observed),
            new Plan(step, errant),
            new Outcome(rec, null, null, null),
            null,
            null);
    return builder.build(c, ClusterModel.of(c), tick, addresses, null);
  }

  private static String cond(MySQLClusterStatus s, String type) {
    return Conditions.find(s.getConditions(), type)
        .map(c -> c.getStatus() + "/" + c.getReason())
        .orElseThrow();
  }

  @Test
  void aSteadyClusterIsReadyWithRolesLagAndNoEmptyStrings() {
    MySQLClusterStatus s = build(new Step.Steady(), Set.of(), primary(true), replica());
    assertThat(cond(s, "Ready")).isEqualTo("True/Replicating");
    assertThat(cond(s, "Degraded")).isEqualTo("False/Healthy");
    assertThat(cond(s, "FailingOver")).isEqualTo("False/PrimaryAvailable");
    assertThat(s.getHealthyInstances()).isEqualTo(2);
    assertThat(s.getInstances()).extracting(i -> i.getRole()).containsExactly("primary", "replica");
    assertThat(s.getInstances().get(1).getLagSeconds()).isEqualTo(2L);
    // A 1.20 server's apply turns "" into null, which a string field refuses.
    assertThat(s.getPromotionGtid()).isNull();
    assertThat(s.getObservedGeneration()).isEqualTo(3L);
    assertThat(s.getConditions())
        .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(3L));
  }

  @Test
  void semiSyncOffOnThePrimaryIsDegraded() {
    MySQLClusterStatus s =
        build(new Step.SemiSync("db-0", true), Set.of(), primary(false), replica());
    assertThat(cond(s, "Degraded")).isEqualTo("True/SemiSyncOff");
    assertThat(cond(s, "Ready")).startsWith("False/");
  }

  @Test
  void aReplicaWhoseDataDifferedSaysSoAndTheRecordComesBackFromTheStatus() {
    ContentRecord content =
        new ContentRecord(
            Map.of("db-0", 1_780_000_000L),
            Map.of("db-1", "app.items: 9 rows here, 10 on the primary"),
            "db-1's data differs from the primary db-0's",
            Instant.parse("2026-11-22T17:59:00Z"));
    TopologyRecord rec = new TopologyRecord("db-0", null, "", null, null, null, null, content);
    MySQLClusterStatus s = build(rec, new Step.Steady(), Set.of("db-1"), primary(true), replica());
    assertThat(cond(s, "Degraded")).isEqualTo("True/DataDiffers");
    assertThat(s.getInstances().get(1).getMessage())
        .startsWith(
            "its data differed from the primary's after its server restarted (app.items: 9 rows"
                + " here, 10 on the primary); never promoted");
    MySQLCluster c = ClusterObjectsTest.cluster(new MySQLClusterSpec());
    assertThat(StatusRecords.record(s, ClusterModel.of(c)).content()).isEqualTo(content);
  }

  @Test
  void anErrantReplicaIsReportedAndNotHealthy() {
    MySQLClusterStatus s = build(new Step.Steady(), Set.of("db-1"), primary(true), replica());
    assertThat(cond(s, "Degraded")).isEqualTo("True/ErrantTransactions");
    assertThat(s.getInstances().get(1).getErrant()).isTrue();
    assertThat(s.getInstances().get(1).getHealthy()).isFalse();
    assertThat(s.getInstances().get(1).getMessage()).contains("never promoted");
  }

  @Test
  void anUnreachablePrimaryIsFailingOver() {
    MySQLClusterStatus s =
        build(
            new Step.Wait("PrimaryUnreachable", "the primary db-0 has been unreachable for 3s"),
            Set.of(),
            InstanceState.unreachable("db-0", 0),
            replica());
    assertThat(cond(s, "FailingOver")).isEqualTo("True/PrimaryUnreachable");
    assertThat(cond(s, "Ready")).isEqualTo("False/PrimaryUnreachable");
    assertThat(s.getInstances().get(0).getRole()).isEqualTo("unknown");
  }

  @Test
  void aReplicaProbingTheUnreachablePrimaryIsPartOfTheFailover() {
    MySQLClusterStatus s =
        build(
            new Step.Wait(
                "ConfirmingPrimaryDown",
                "the primary db-0 is unreachable; db-1 is trying to connect to it before any"
                    + " failover: if it can, db-0 lives and is not replaced"),
            Set.of(),
            InstanceState.unreachable("db-0", 0),
            replica());
    assertThat(cond(s, "FailingOver")).isEqualTo("True/ConfirmingPrimaryDown");
    assertThat(cond(s, "Ready")).isEqualTo("False/ConfirmingPrimaryDown");
  }

  @Test
  void aFailoverHeldBackForItsOnlyCandidatesDataIsFailingOver() {
    MySQLClusterStatus s =
        build(
            new Step.Wait(
                "CandidateNotKnownGood",
                "the primary db-0 is unreachable and db-1, the only member left to promote,"
                    + " restarted since its data was last compared with the primary's"),
            Set.of(),
            InstanceState.unreachable("db-0", 0),
            replica());
    assertThat(cond(s, "FailingOver")).isEqualTo("True/CandidateNotKnownGood");
    assertThat(cond(s, "Ready")).isEqualTo("False/CandidateNotKnownGood");
  }

  static InstanceState replica(boolean io, boolean sql, Long lag, int ioErrno, int sqlErrno) {
    return Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300)
        .ioRunning(io)
        .sqlRunning(sql)
        .lagSeconds(lag)
        .lastIoErrno(ioErrno)
        .lastSqlErrno(sqlErrno)
        .build();
  }

  @Test
  void aLaggingApplierIsReportedWithItsSeconds() {
    MySQLClusterStatus s =
        build(new Step.Steady(), Set.of(), primary(true), replica(true, true, 42L, 0, 0));
    assertThat(cond(s, "Ready")).isEqualTo("True/Replicating");
    assertThat(cond(s, "Degraded")).isEqualTo("True/ReplicaLagging");
    assertThat(message(s, "Degraded")).isEqualTo("db-1: applier lagging 42s behind the primary");
    assertThat(s.getInstances().get(1).getMessage()).contains("42s");
  }

  @Test
  void aStoppedReceiverOrApplierIsReportedWithItsLastError() {
    MySQLClusterStatus io =
        build(
            new Step.Attach("db-1", "db-0"),
            Set.of(),
            primary(true),
            replica(false, true, null, 1045, 0));
    assertThat(cond(io, "Degraded")).isEqualTo("True/InstancesUnhealthy");
    assertThat(message(io, "Degraded"))
        .isEqualTo(
            "db-1: receiver (IO thread) not running; last error 1045 (the replication user was"
                + " refused: check the <cluster>-replication Secret)");
    MySQLClusterStatus sql =
        build(
            new Step.Attach("db-1", "db-0"),
            Set.of(),
            primary(true),
            replica(true, false, null, 0, 1062));
    assertThat(sql.getInstances().get(1).getMessage())
        .startsWith("applier (SQL thread) stopped; last error 1062");
    assertThat(sql.getInstances().get(1).getHealthy()).isFalse();
  }

  private static String message(MySQLClusterStatus s, String type) {
    return Conditions.find(s.getConditions(), type).orElseThrow().getMessage();
  }

  @Test
  void aRoundBlockedByTheSpecNamesTheBlockAndKeepsFailingOverFromTheRound() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(2);
    MySQLCluster c = ClusterObjectsTest.cluster(spec);
    var tick =
        new TopologyController.Tick(
            List.of(InstanceState.unreachable("db-0", 0), replica()),
            new Plan(
                new Step.Wait("PrimaryUnreachable", "the primary db-0 is unreachable"), Set.of()),
            new Outcome(new TopologyRecord("db-0", null, "", null, null, null), null, null, null),
            null,
            null);

    MySQLClusterStatus s =
        builder.blockedAfterRound(
            c, ClusterModel.of(c), tick, addresses, "SecretMissing", "the Secret db is missing");

    assertThat(s.getConditions())
        .extracting(cond -> cond.getType())
        .containsExactly("Ready", "Progressing", "FailingOver", "Degraded");
    assertThat(cond(s, "Ready")).isEqualTo("False/SecretMissing");
    assertThat(message(s, "Progressing")).isEqualTo("waiting for the spec to be fixed");
    assertThat(cond(s, "Degraded")).isEqualTo("True/SecretMissing");
    assertThat(cond(s, "FailingOver")).isEqualTo("True/PrimaryUnreachable");
    assertThat(s.getInstances()).extracting(i -> i.getRole()).containsExactly("unknown", "replica");
  }

  @Test
  void aRoundBlockedByADowngradeKeepsTheVersionTheClusterRuns() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(2);
    spec.setVersion("10.11");
    MySQLCluster c = ClusterObjectsTest.cluster(spec);
    MySQLClusterStatus running = new MySQLClusterStatus();
    running.setVersion("11.4");
    c.setStatus(running);
    var tick =
        new TopologyController.Tick(
            List.of(primary(true), replica()),
            new Plan(new Step.Steady(), Set.of()),
            new Outcome(new TopologyRecord("db-0", null, "", null, null, null), null, null, null),
            null,
            null);

    MySQLClusterStatus held =
        builder.blockedAfterRound(
            c, ClusterModel.of(c), tick, addresses, "InvalidSpec", "downgrades are refused");
    MySQLClusterStatus blocked =
        builder.blocked(c, ClusterModel.of(c), "InvalidSpec", "downgrades are refused");

    // What the next round's downgrade check compares with: were it 10.11, the next round would
    // find the spec valid and roll the downgrade out.
    assertThat(held.getVersion()).isEqualTo("11.4");
    assertThat(blocked.getVersion()).isEqualTo("11.4");
  }

  @Test
  void errantMembersAreNamedInWordsAndNoMessageRendersARecord() {
    MySQLClusterStatus s = build(new Step.Steady(), Set.of("db-1"), primary(true), replica());

    assertThat(message(s, "Degraded"))
        .isEqualTo(
            "db-1 hold transactions the primary does not have; they are kept read-only and never"
                + " promoted");
    assertThat(s.getInstances().get(1).getMessage())
        .contains("the annotation " + Rebuilds.REQUEST_ANNOTATION + "=db-1 (");
    for (Step step :
        List.of(
            new Step.Steady(),
            new Step.Attach("db-1", "db-0"),
            new Step.SemiSync("db-0", true),
            new Step.Wait("PrimaryUnreachable", "the primary db-0 is unreachable"))) {
      assertThat(build(step, Set.of("db-1"), primary(false), replica()).getConditions())
          .allSatisfy(cond -> assertThat(cond.getMessage()).doesNotContainPattern("\\w+\\[\\w+="));
    }
  }
}
