package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Metrics;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Tls;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdClusterValidatorTest {

  static EtcdClusterSpec spec(String version) {
    EtcdClusterSpec s = new EtcdClusterSpec();
    s.setVersion(version);
    return s;
  }

  @Test
  void aSupportedVersionOnANewClusterIsFine() {
    assertThat(EtcdClusterValidator.validate("main", spec("3.5.17"), List.of())).isEmpty();
  }

  @Test
  void anUnsupportedVersionIsRefusedNamingTheSupportedOnes() {
    assertThat(EtcdClusterValidator.validate("main", spec("3.3.9"), List.of()))
        .singleElement()
        .asString()
        .contains("3.3.9 is not supported", "3.4.23");
  }

  @Test
  void upgradesWithinAndToTheNextMinorAreFine() {
    assertThat(EtcdClusterValidator.validate("main", spec("3.4.34"), List.of("3.4.23"))).isEmpty();
    assertThat(EtcdClusterValidator.validate("main", spec("3.5.17"), List.of("3.4.34", "3.5.17")))
        .isEmpty();
  }

  @Test
  void aDowngradeIsRefused() {
    assertThat(EtcdClusterValidator.validate("main", spec("3.4.23"), List.of("3.4.34")))
        .singleElement()
        .asString()
        .contains("downgrade");
    assertThat(EtcdClusterValidator.validate("main", spec("3.4.37"), List.of("3.5.17")))
        .singleElement()
        .asString()
        .contains("downgrade");
  }

  @Test
  void versionsCompareNumerically() {
    assertThat(SupportedVersions.ORDER.compare("3.4.9", "3.4.23")).isNegative();
    assertThat(SupportedVersions.ORDER.compare("3.10.0", "3.9.9")).isPositive();
  }

  @Test
  void tlsForClientsNeedsTheOperatorsCertificateToo() {
    EtcdClusterSpec s = spec("3.5.17");
    Tls tls = new Tls();
    tls.setServerSecretName("server");
    s.setTls(tls);
    assertThat(EtcdClusterValidator.validate("main", s, List.of()))
        .singleElement()
        .asString()
        .contains("operatorSecretName");
    tls.setOperatorSecretName("operator");
    assertThat(EtcdClusterValidator.validate("main", s, List.of())).isEmpty();
  }

  @Test
  void revisionCompactionNeedsANumberAndADefragScheduleMustParse() {
    var spec = spec("3.5.17");
    var maintenance = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance();
    var compaction = new dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction();
    compaction.setMode(
        dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction.Mode.REVISION);
    compaction.setRetention("1h");
    maintenance.setCompaction(compaction);
    var defrag = new dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Defragmentation();
    defrag.setSchedule("61 * * * *");
    maintenance.setDefragmentation(defrag);
    spec.setMaintenance(maintenance);
    assertThat(EtcdClusterValidator.validate("main", spec, List.of()))
        .anySatisfy(p -> assertThat(p).contains("retention 1h", "number of revisions"))
        .anySatisfy(p -> assertThat(p).startsWith("maintenance.defragmentation.schedule"));
    compaction.setRetention("10000");
    defrag.setSchedule("0 3 * * *");
    assertThat(EtcdClusterValidator.validate("main", spec, List.of())).isEmpty();
  }

  @Test
  void aNameOfFiftySixCharactersFitsTheServicesAndMembers() {
    String name = "e" + "t".repeat(54) + "d";
    assertThat(name).hasSize(56);
    assertThat(EtcdClusterValidator.validate(name, spec("3.5.17"), List.of())).isEmpty();
  }

  @Test
  void aLongerNameIsRefusedNamingTheClientServiceRule() {
    String name = "e" + "t".repeat(55) + "d";
    assertThat(EtcdClusterValidator.validate(name, spec("3.5.17"), List.of()))
        .singleElement()
        .asString()
        .startsWith("metadata.name: ")
        .contains("the client Service name", "64 characters long; at most 63 are allowed")
        .contains("at most 56 characters");
  }

  @Test
  void aNameStartingWithADigitOrWithADotIsRefused() {
    assertThat(EtcdClusterValidator.validate("1main", spec("3.5.17"), List.of()))
        .singleElement()
        .asString()
        .contains("the peer Service name '1main-peer'", "starting with a letter");
    assertThat(EtcdClusterValidator.validate("main.shop", spec("3.5.17"), List.of()))
        .singleElement()
        .asString()
        .contains("the peer Service name 'main.shop-peer'", "(no '.')");
  }

  @Test
  void aMetricsPortOnEtcdsClientOrPeerPortIsRefused() {
    for (int port : List.of(2379, 2380)) {
      EtcdClusterSpec s = spec("3.5.17");
      s.setMetrics(new Metrics());
      s.getMetrics().setEnabled(true);
      s.getMetrics().setPort(port);

      assertThat(EtcdClusterValidator.validate("main", s, List.of()))
          .singleElement()
          .asString()
          .contains("metrics.port " + port, "2381");
    }
  }

  @Test
  void aDisabledMetricsEndpointsPortIsNotChecked() {
    EtcdClusterSpec s = spec("3.5.17");
    s.setMetrics(new Metrics());
    s.getMetrics().setPort(2379);

    assertThat(EtcdClusterValidator.validate("main", s, List.of())).isEmpty();
  }
}
