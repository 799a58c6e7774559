package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterObjectsTest;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Metrics;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Switchover;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the operator refuses that the 1.20 API server cannot. */
class ClusterValidatorTest {

  static ClusterModel model(MySQLClusterSpec spec) {
    return ClusterModel.of(ClusterObjectsTest.cluster(spec));
  }

  static MySQLClusterSpec mariadb(String version) {
    MySQLClusterSpec s = new MySQLClusterSpec();
    s.setFlavour(MySQLClusterSpec.Flavour.MARIADB);
    s.setVersion(version);
    return s;
  }

  @Test
  void aValidSpecPasses() {
    assertThat(ClusterValidator.validate(model(new MySQLClusterSpec()), null)).isEmpty();
    assertThat(ClusterValidator.validate(model(mariadb("11.4")), null)).isEmpty();
  }

  @Test
  void flavourAndVersionMustMatch() {
    MySQLClusterSpec s = new MySQLClusterSpec();
    s.setVersion("10.11");
    assertThat(ClusterValidator.validate(model(s), null))
        .singleElement()
        .asString()
        .contains("8.4");
    assertThat(ClusterValidator.validate(model(mariadb("8.4")), null)).hasSize(1);
  }

  @Test
  void settingsTheOperatorOwnsAreRefusedInEitherSpelling() {
    MySQLClusterSpec s = mariadb("10.11");
    s.setServerConfig(
        Map.of("read-only", "OFF", "gtid_strict_mode", "OFF", "max_connections", "9"));
    assertThat(ClusterValidator.validate(model(s), null))
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("serverConfig.read-only"))
        .anySatisfy(p -> assertThat(p).contains("serverConfig.gtid_strict_mode"));
  }

  @Test
  void anOwnedSettingCannotBeReachedThroughAPrefixCaseOrAnotherSpelling() {
    for (String key :
        java.util.List.of(
            "loose-read-only",
            "LOOSE_READ_ONLY",
            "skip-log-bin",
            "loose-skip-log-bin",
            "disable-log-bin",
            "enable-gtid-strict-mode",
            "maximum-sync-binlog",
            "Read_Only",
            "skip-sync-binlog",
            "rpl_semi_sync_master_wait_no_slave",
            "loose-rpl-semi-sync-master-timeout",
            "slave_net_timeout")) {
      MySQLClusterSpec s = mariadb("10.11");
      s.setServerConfig(Map.of(key, "0"));
      assertThat(ClusterValidator.validate(model(s), null))
          .as(key)
          .singleElement()
          .asString()
          .contains("serverConfig." + key, "managed by the operator");
    }
    MySQLClusterSpec my = new MySQLClusterSpec();
    my.setServerConfig(
        Map.of(
            "loose-super-read-only", "OFF",
            "rpl_semi_sync_source_wait_no_replica", "OFF",
            "skip_rpl_semi_sync_source_timeout", "1"));
    assertThat(ClusterValidator.validate(model(my), null)).hasSize(3);
  }

  @Test
  void aKeyThatIsNoOptionNameIsRefusedWithoutEchoingItsLines() {
    for (String key :
        java.util.List.of(
            "max_connections\nread-only", "x=1", "[client]", "!include", "a b", "-x", "")) {
      MySQLClusterSpec s = mariadb("10.11");
      s.setServerConfig(Map.of(key, "1"));
      assertThat(ClusterValidator.validate(model(s), null))
          .as(key)
          .singleElement()
          .asString()
          .contains("is not an option name")
          .doesNotContain("\n");
    }
  }

  @Test
  void plainSettingsPass() {
    MySQLClusterSpec s = mariadb("10.11");
    s.setServerConfig(
        Map.of(
            "max_connections", "500", "innodb-buffer-pool-size", "1G", "skip-name-resolve", "ON"));
    assertThat(ClusterValidator.validate(model(s), null)).isEmpty();
  }

  @Test
  void aSemiSyncTimeoutBelowTheFloorIsRefused() {
    MySQLClusterSpec s = mariadb("10.11");
    var semi = new dev.bosun.mysql.v1alpha1.mysqlclusterspec.SemiSync();
    semi.setTimeoutMilliseconds(2_000L);
    s.setSemiSync(semi);
    assertThat(ClusterValidator.validate(model(s), null))
        .singleElement()
        .asString()
        .contains("semiSync.timeoutMilliseconds 2000 is below the floor of 10000");
    semi.setTimeoutMilliseconds(10_000L);
    assertThat(ClusterValidator.validate(model(s), null)).isEmpty();
  }

  @Test
  void anApplicationAccountCannotTakeTheServersOrTheOperatorsNamesNorASystemSchema() {
    MySQLClusterSpec s = mariadb("10.11");
    s.setUsers(
        java.util.List.of(
            user("root", "app"),
            user("bosun_operator", "app"),
            user("shop", "mysql"),
            user("ok", "shop")));
    assertThat(ClusterValidator.validate(model(s), null))
        .hasSize(3)
        .anySatisfy(p -> assertThat(p).contains("users[root]", "kept for the server"))
        .anySatisfy(p -> assertThat(p).contains("users[bosun_operator]"))
        .anySatisfy(p -> assertThat(p).contains("users[shop].databases: mysql is a system schema"));
  }

  static dev.bosun.mysql.v1alpha1.mysqlclusterspec.Users user(String name, String db) {
    var u = new dev.bosun.mysql.v1alpha1.mysqlclusterspec.Users();
    u.setName(name);
    u.setDatabases(java.util.List.of(db));
    return u;
  }

  @Test
  void aDowngradeAndAFlavourChangeAreRefused() {
    MySQLClusterStatus running = new MySQLClusterStatus();
    running.setVersion("11.4");
    running.setFlavour("MariaDB");
    assertThat(ClusterValidator.validate(model(mariadb("10.11")), running))
        .singleElement()
        .asString()
        .contains("downgrades are refused");
    assertThat(ClusterValidator.validate(model(mariadb("11.4.2")), running)).isEmpty();
    assertThat(ClusterValidator.validate(model(new MySQLClusterSpec()), running))
        .anySatisfy(p -> assertThat(p).contains("flavour cannot change"));
  }

  @Test
  void versionsCompareOverThePartsBothName() {
    assertThat(ClusterValidator.compareVersions("8.4", "8.4.3")).isZero();
    assertThat(ClusterValidator.compareVersions("10.11", "11.4")).isNegative();
    assertThat(ClusterValidator.compareVersions("11.4", "10.11.9")).isPositive();
  }

  @Test
  void aSwitchoverTargetMustBeAnInstanceOfTheCluster() {
    MySQLClusterSpec s = new MySQLClusterSpec();
    s.setReplicas(3);
    Switchover sw = new Switchover();
    sw.setTarget("db-3");
    s.setSwitchover(sw);
    assertThat(ClusterValidator.validate(model(s), null))
        .singleElement()
        .asString()
        .contains("db-0 to db-2");
    sw.setTarget("other-1");
    assertThat(ClusterValidator.validate(model(s), null)).hasSize(1);
    sw.setTarget("db-2");
    assertThat(ClusterValidator.validate(model(s), null)).isEmpty();
  }

  @Test
  void theDurabilitySettingsCannotBeWeakened() {
    for (String key :
        java.util.List.of("sync_binlog", "sync-binlog", "innodb_flush_log_at_trx_commit")) {
      MySQLClusterSpec s = mariadb("11.4");
      s.setServerConfig(Map.of(key, "0"));
      assertThat(ClusterValidator.validate(model(s), null))
          .singleElement()
          .asString()
          .contains("serverConfig." + key, "managed by the operator");
      MySQLClusterSpec my = new MySQLClusterSpec();
      my.setServerConfig(Map.of(key, "2"));
      assertThat(ClusterValidator.validate(model(my), null)).hasSize(1);
    }
  }

  static ClusterModel named(String name) {
    var c = ClusterObjectsTest.cluster(new MySQLClusterSpec());
    c.getMetadata().setName(name);
    return ClusterModel.of(c);
  }

  @Test
  void aNameOfFiftyTwoCharactersFitsEveryChild() {
    String name = "a" + "b".repeat(50) + "c";
    assertThat(name).hasSize(52);
    assertThat(ClusterValidator.validate(named(name), null)).isEmpty();
  }

  @Test
  void aLongerNameIsRefusedForThePodsRevisionLabel() {
    String name = "a" + "b".repeat(51) + "c";
    assertThat(ClusterValidator.validate(named(name), null))
        .singleElement()
        .asString()
        .startsWith("metadata.name: ")
        .contains("controller-revision-hash label value", "64 characters long", "at most 63")
        .contains("at most 52 characters");
  }

  @Test
  void aNameTooLongForTheServicesNamesTheServiceRule() {
    String name = "a".repeat(55);
    assertThat(ClusterValidator.validate(named(name), null))
        .singleElement()
        .asString()
        .contains("the headless Service name", "64 characters long; at most 63 are allowed");
  }

  @Test
  void aNameStartingWithADigitOrWithADotIsRefusedForTheServices() {
    assertThat(ClusterValidator.validate(named("1db"), null))
        .singleElement()
        .asString()
        .contains("the headless Service name '1db-headless'", "starting with a letter");
    assertThat(ClusterValidator.validate(named("db.shop"), null))
        .singleElement()
        .asString()
        .contains("the headless Service name 'db.shop-headless'", "(no '.')");
  }

  @Test
  void theExporterNeedsAPortOfItsOwn() {
    MySQLClusterSpec s = mariadb("10.11");
    s.setMetrics(new Metrics());
    s.getMetrics().setEnabled(true);
    s.getMetrics().setPort(3306);

    assertThat(ClusterValidator.validate(model(s), null))
        .singleElement()
        .asString()
        .contains("metrics.port 3306 is the server's port", "9104");
    s.getMetrics().setEnabled(false);
    assertThat(ClusterValidator.validate(model(s), null)).isEmpty();
  }
}
