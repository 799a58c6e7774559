package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSource;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DisasterRecoveryTest {

  static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");
  static final Step LOST = new Step.QuorumLost("0 of 3");
  final AtomicInteger lookups = new AtomicInteger();

  static EtcdCluster cluster(Integer afterSeconds, Integer maxAgeMinutes) {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(new ObjectMetaBuilder().withName("c").withNamespace("ns").build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setVersion("3.4.23");
    var dr = new dev.bosun.etcd.v1alpha1.etcdclusterspec.DisasterRecovery();
    dr.setRestoreFromBackup("nightly");
    dr.setAfterSeconds(afterSeconds);
    dr.setMaxSnapshotAgeMinutes(maxAgeMinutes);
    spec.setDisasterRecovery(dr);
    c.setSpec(spec);
    return c;
  }

  DisasterRecovery.Snapshots takenAgo(Duration age) {
    return () -> {
      lookups.incrementAndGet();
      return new RestoreSource.S3(
          "nightly",
          "ns/c/nightly/x.db",
          "http://127.0.0.1:1",
          "us-east-1",
          "b",
          true,
          "s3",
          NOW.minus(age));
    };
  }

  static ZonedDateTime ago(int seconds) {
    return NOW.minusSeconds(seconds).atZone(ZoneOffset.UTC);
  }

  @Test
  void withoutTheOptInNothingHappens() {
    EtcdCluster c = cluster(30, 60);
    c.getSpec().setDisasterRecovery(null);
    var d = DisasterRecovery.decide(c, LOST, ago(3600), NOW, takenAgo(Duration.ZERO));
    assertThat(d).isInstanceOf(DisasterRecovery.Idle.class);
    assertThat(d.condition().reason()).isEqualTo("NotConfigured");
    assertThat(lookups).hasValue(0);
  }

  @Test
  void membersTheOperatorCannotSeeNeverStartARecovery() {
    var d =
        DisasterRecovery.decide(
            cluster(30, 60),
            new Step.MembersUnseen("cut off"),
            ago(3600),
            NOW,
            takenAgo(Duration.ZERO));
    assertThat(d).isInstanceOf(DisasterRecovery.Idle.class);
    assertThat(d.condition().reason()).isEqualTo("QuorumNotConfirmedLost");
    assertThat(lookups).hasValue(0);
    var healthy =
        DisasterRecovery.decide(
            cluster(30, 60), new Step.Converged(), null, NOW, takenAgo(Duration.ZERO));
    assertThat(healthy.condition().reason()).isEqualTo("Standby");
    assertThat(healthy.condition().message()).contains("30 s", "nightly", "60 minutes");
  }

  @Test
  void membersWithoutALeaderRunningOnTheirDataAreNeverRestored() {
    // Long past afterSeconds, with a fresh snapshot at hand: still no recovery, and no lookup.
    var d =
        DisasterRecovery.decide(
            cluster(30, 60),
            new Step.NoLeader("3 of 3 report no leader"),
            ago(3600),
            NOW,
            takenAgo(Duration.ZERO));
    assertThat(d).isInstanceOf(DisasterRecovery.Idle.class);
    assertThat(d.condition().status()).isEqualTo("False");
    assertThat(d.condition().reason()).isEqualTo("DataIntact");
    assertThat(d.condition().message()).contains("would roll back a keyspace that is not lost");
    assertThat(lookups).hasValue(0);
  }

  @Test
  void aConfirmedLossWaitsForAfterSeconds() {
    var d = DisasterRecovery.decide(cluster(30, 60), LOST, ago(29), NOW, takenAgo(Duration.ZERO));
    assertThat(d).isInstanceOf(DisasterRecovery.Waiting.class);
    assertThat(d.condition().reason()).isEqualTo("WaitingForAfterSeconds");
    assertThat(d.condition().message()).contains("starts at 2026-11-23T10:00:01Z");
    // The first observation of the loss starts the clock.
    var first = DisasterRecovery.decide(cluster(30, 60), LOST, null, NOW, takenAgo(Duration.ZERO));
    assertThat(first).isInstanceOf(DisasterRecovery.Waiting.class);
    assertThat(lookups).hasValue(0);
  }

  @Test
  void aDueRecoveryStartsFromASnapshotInsideTheBound() {
    var d =
        DisasterRecovery.decide(
            cluster(30, 60), LOST, ago(30), NOW, takenAgo(Duration.ofMinutes(59)));
    assertThat(d).isInstanceOf(DisasterRecovery.Start.class);
    assertThat(((DisasterRecovery.Start) d).source().key()).isEqualTo("ns/c/nightly/x.db");
    assertThat(d.condition().status()).isEqualTo("True");
    assertThat(d.condition().message()).contains("59 minutes ago");
  }

  @Test
  void aTooOldSnapshotIsRefusedSayingWhy() {
    var d =
        DisasterRecovery.decide(
            cluster(30, 60), LOST, ago(300), NOW, takenAgo(Duration.ofMinutes(61)));
    assertThat(d).isInstanceOf(DisasterRecovery.Refused.class);
    assertThat(d.condition().reason()).isEqualTo("SnapshotTooOld");
    assertThat(d.condition().message())
        .contains("61 minutes ago", "maxSnapshotAgeMinutes=60", "s3://b/ns/c/nightly/x.db");
  }

  @Test
  void noSnapshotIsRefusedSayingWhy() {
    var d =
        DisasterRecovery.decide(
            cluster(30, 60),
            LOST,
            ago(300),
            NOW,
            () -> {
              throw new RestoreSources.NotRestorable("WaitingForBackup", "no snapshot yet");
            });
    assertThat(d).isInstanceOf(DisasterRecovery.Refused.class);
    assertThat(d.condition().reason()).isEqualTo("NoUsableSnapshot");
    assertThat(d.condition().message()).contains("no snapshot yet");
  }

  @Test
  void theDefaultsAreFiveMinutesAndADay() {
    EtcdCluster c = cluster(null, null);
    assertThat(DisasterRecovery.afterSeconds(c)).isEqualTo(300);
    assertThat(DisasterRecovery.maxSnapshotAgeMinutes(c)).isEqualTo(1440);
    assertThat(DisasterRecovery.decide(c, LOST, ago(299), NOW, takenAgo(Duration.ZERO)))
        .isInstanceOf(DisasterRecovery.Waiting.class);
    assertThat(DisasterRecovery.decide(c, LOST, ago(300), NOW, takenAgo(Duration.ofHours(23))))
        .isInstanceOf(DisasterRecovery.Start.class);
  }
}
