package dev.bosun.common.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OperatorSettingsTest {

  @Test
  void defaultsWhenNothingIsSet() {
    OperatorSettings settings = OperatorSettings.fromMap("my-operator", Map.of());

    assertThat(settings.name()).isEqualTo("my-operator");
    assertThat(settings.watchNamespaces()).isEmpty();
    assertThat(settings.leaderElection()).isFalse();
    assertThat(settings.leaseNamespace()).isEmpty();
    assertThat(settings.httpPort()).isEqualTo(8080);
    assertThat(settings.reconcileThreads()).isEqualTo(10);
    assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(settings.leaseName()).isEqualTo("my-operator-leader");
  }

  @Test
  void blankValuesMeanTheDefaults() {
    OperatorSettings settings =
        OperatorSettings.fromMap(
            "op",
            Map.of(
                OperatorSettings.HTTP_PORT, " ",
                OperatorSettings.RECONCILE_THREADS, "",
                OperatorSettings.LEASE_DURATION_SECONDS, "  ",
                OperatorSettings.WATCH_NAMESPACES, " , ",
                OperatorSettings.LEASE_NAMESPACE, "  "));

    assertThat(settings.httpPort()).isEqualTo(8080);
    assertThat(settings.reconcileThreads()).isEqualTo(10);
    assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(settings.watchNamespaces()).isEmpty();
    assertThat(settings.leaseNamespace()).isEmpty();
  }

  @Test
  void namespacesAreTrimmedAndEmptiesDropped() {
    OperatorSettings settings =
        OperatorSettings.fromMap(
            "op", Map.of(OperatorSettings.WATCH_NAMESPACES, " team-a ,, team-b,team-a , ,"));

    assertThat(settings.watchNamespaces()).containsExactlyInAnyOrder("team-a", "team-b");
  }

  @Test
  void oneNamespace() {
    OperatorSettings settings =
        OperatorSettings.fromMap("op", Map.of(OperatorSettings.WATCH_NAMESPACES, "prod"));

    assertThat(settings.watchNamespaces()).containsExactly("prod");
  }

  @Test
  void everyVariableIsRead() {
    OperatorSettings settings =
        OperatorSettings.fromMap(
            "op",
            Map.of(
                OperatorSettings.LEADER_ELECTION, "true",
                OperatorSettings.LEASE_NAMESPACE, "bosun-system",
                OperatorSettings.HTTP_PORT, " 9090 ",
                OperatorSettings.RECONCILE_THREADS, "3",
                OperatorSettings.LEASE_DURATION_SECONDS, "30"));

    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaseNamespace()).contains("bosun-system");
    assertThat(settings.httpPort()).isEqualTo(9090);
    assertThat(settings.reconcileThreads()).isEqualTo(3);
    assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void leaderElectionIsCaseInsensitive() {
    OperatorSettings settings =
        OperatorSettings.fromMap(
            "op",
            Map.of(
                OperatorSettings.LEADER_ELECTION, "TRUE",
                OperatorSettings.LEASE_NAMESPACE, "ns"));

    assertThat(settings.leaderElection()).isTrue();
  }

  @Test
  void leaseNamespaceWithoutLeaderElectionIsKeptButUnused() {
    OperatorSettings settings =
        OperatorSettings.fromMap("op", Map.of(OperatorSettings.LEASE_NAMESPACE, "ns"));

    assertThat(settings.leaderElection()).isFalse();
    assertThat(settings.leaseNamespace()).contains("ns");
  }

  @Test
  void leaderElectionNeedsALeaseNamespace() {
    assertThatThrownBy(
            () -> OperatorSettings.fromMap("op", Map.of(OperatorSettings.LEADER_ELECTION, "true")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BOSUN_LEADER_ELECTION=true")
        .hasMessageContaining("BOSUN_LEASE_NAMESPACE");
  }

  @Test
  void leaderElectionWithABlankLeaseNamespaceIsRejected() {
    assertThatThrownBy(
            () ->
                OperatorSettings.fromMap(
                    "op",
                    Map.of(
                        OperatorSettings.LEADER_ELECTION, "true",
                        OperatorSettings.LEASE_NAMESPACE, "   ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BOSUN_LEASE_NAMESPACE");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        OperatorSettings.HTTP_PORT,
        OperatorSettings.RECONCILE_THREADS,
        OperatorSettings.LEASE_DURATION_SECONDS
      })
  void aNumberThatIsNotOneNamesTheVariable(String variable) {
    assertThatThrownBy(() -> OperatorSettings.fromMap("op", Map.of(variable, "ten")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(variable)
        .hasMessageContaining("ten")
        .hasCauseInstanceOf(NumberFormatException.class);
  }

  @Test
  void aFractionIsNotAWholeNumber() {
    assertThatThrownBy(
            () -> OperatorSettings.fromMap("op", Map.of(OperatorSettings.HTTP_PORT, "80.5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OperatorSettings.HTTP_PORT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-2", "65536", "100000"})
  void httpPortOutOfRangeIsRejected(String port) {
    assertThatThrownBy(
            () -> OperatorSettings.fromMap("op", Map.of(OperatorSettings.HTTP_PORT, port)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OperatorSettings.HTTP_PORT)
        .hasMessageContaining(port);
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 0, 65535})
  void httpPortEdgesAreAccepted(int port) {
    OperatorSettings settings =
        OperatorSettings.fromMap("op", Map.of(OperatorSettings.HTTP_PORT, String.valueOf(port)));

    assertThat(settings.httpPort()).isEqualTo(port);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-4"})
  void reconcileThreadsBelowOneAreRejected(String threads) {
    assertThatThrownBy(
            () ->
                OperatorSettings.fromMap("op", Map.of(OperatorSettings.RECONCILE_THREADS, threads)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OperatorSettings.RECONCILE_THREADS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"My-Operator", "-op", "op-", "op_1", "op.x", ""})
  void invalidOperatorNamesAreRejected(String name) {
    assertThatThrownBy(() -> OperatorSettings.fromMap(name, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DNS label");
  }

  @Test
  void nullOperatorNameIsRejected() {
    assertThatThrownBy(() -> OperatorSettings.local(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DNS label");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "op1", "bosun-webservice-operator", "1op"})
  void validOperatorNamesAreAccepted(String name) {
    assertThat(OperatorSettings.fromMap(name, Map.of()).name()).isEqualTo(name);
  }

  @Test
  void localSettings() {
    OperatorSettings local = OperatorSettings.local("op");

    assertThat(local.watchNamespaces()).isEmpty();
    assertThat(local.leaderElection()).isFalse();
    assertThat(local.httpPort()).isZero();
    assertThat(local.reconcileThreads()).isEqualTo(10);
  }

  @Test
  void withHttpPortAndWatchingChangeOnlyTheirField() {
    OperatorSettings base =
        new OperatorSettings(
            "op", Set.of("a"), true, Optional.of("ns"), 8080, 4, Duration.ofSeconds(20));

    OperatorSettings otherPort = base.withHttpPort(-1);
    OperatorSettings otherNamespaces = base.watching(Set.of("b", "c"));

    assertThat(otherPort)
        .isEqualTo(
            new OperatorSettings(
                "op", Set.of("a"), true, Optional.of("ns"), -1, 4, Duration.ofSeconds(20)));
    assertThat(otherNamespaces)
        .isEqualTo(
            new OperatorSettings(
                "op", Set.of("b", "c"), true, Optional.of("ns"), 8080, 4, Duration.ofSeconds(20)));
    assertThatThrownBy(() -> base.withHttpPort(70000)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void watchedNamespacesAreACopy() {
    java.util.Set<String> namespaces = new java.util.HashSet<>(Set.of("a"));
    OperatorSettings settings = OperatorSettings.local("op").watching(namespaces);
    namespaces.add("b");

    assertThat(settings.watchNamespaces()).containsExactly("a");
    assertThatThrownBy(() -> settings.watchNamespaces().add("c"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @org.junit.jupiter.api.Test
  void aLeaderElectionTypoIsRejectedInsteadOfTurningItOff() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> OperatorSettings.fromMap("op", Map.of(OperatorSettings.LEADER_ELECTION, "yes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OperatorSettings.LEADER_ELECTION)
        .hasMessageContaining("true or false");
  }

  @org.junit.jupiter.api.Test
  void aNameLongerThanALabelValueIsRejected() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> OperatorSettings.fromMap("a".repeat(64), Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThat(
            OperatorSettings.fromMap("a".repeat(63), Map.of()).name())
        .hasSize(63);
  }

  @org.junit.jupiter.api.Test
  void aLeaseDurationOutOfRangeIsRejectedNamingTheVariable() {
    for (String bad : new String[] {"-5", "0", "4", "301"}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  OperatorSettings.fromMap(
                      "op", Map.of(OperatorSettings.LEASE_DURATION_SECONDS, bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(OperatorSettings.LEASE_DURATION_SECONDS);
    }
  }

  @Test
  void leaseTimingsSatisfyTheLeaderElectorForEveryAllowedDuration() {
    // fabric8's LeaderElectorBuilder refuses renewDeadline <= retryPeriod * (1 + 1.2).
    for (int seconds = 5; seconds <= 300; seconds++) {
      OperatorSettings s =
          OperatorSettings.fromMap(
              "op",
              java.util.Map.of(OperatorSettings.LEASE_DURATION_SECONDS, Integer.toString(seconds)));
      double renew = s.renewDeadline().toMillis();
      double retry = s.leaseRetryPeriod().toMillis();
      org.assertj.core.api.Assertions.assertThat(renew)
          .as("lease %d s", seconds)
          .isGreaterThan(retry * 2.2);
      org.assertj.core.api.Assertions.assertThat(s.renewDeadline()).isLessThan(s.leaseDuration());
      org.assertj.core.api.Assertions.assertThat(s.leaseRetryPeriod())
          .isLessThanOrEqualTo(java.time.Duration.ofSeconds(2));
    }
  }
}
