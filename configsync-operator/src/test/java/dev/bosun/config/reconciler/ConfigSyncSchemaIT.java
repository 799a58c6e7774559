package dev.bosun.config.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The real API server rejects malformed syncs and monitors with a message naming the field. */
@ExtendWith(ControlPlaneExtension.class)
class ConfigSyncSchemaIT {

  private static final String NS = "configsync-schema";
  private static KubernetesClient client;

  @BeforeAll
  static void installCrds() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, dev.bosun.config.ConfigSyncUnderTest.CRDS);
    Crds.namespace(client, NS, Map.of(), Map.of());
  }

  @AfterAll
  static void cleanup() {
    client.namespaces().withName(NS).delete();
    client.close();
  }

  static Stream<Arguments> invalid() {
    String to = "destinations: {namespaces: [team-a]}";
    return Stream.of(
        Arguments.of("ConfigMapSync", "no source", to, "spec.source: Required value"),
        Arguments.of(
            "ConfigMapSync",
            "no destinations",
            "source: {name: app}",
            "spec.destinations: Required value"),
        Arguments.of(
            "ConfigMapSync",
            "empty destinations",
            "source: {name: app}\ndestinations: {}",
            "spec.destinations"),
        Arguments.of(
            "ConfigMapSync",
            "bad source name",
            "source: {name: App_Config}\n" + to,
            "spec.source.name"),
        Arguments.of(
            "ConfigMapSync",
            "bad namespace",
            "source: {name: app}\ndestinations: {namespaces: [Team.A]}",
            "spec.destinations.namespaces"),
        Arguments.of(
            "ConfigMapSync",
            "duplicate namespace",
            "source: {name: app}\ndestinations: {namespaces: [a, a]}",
            "Duplicate value"),
        Arguments.of(
            "ConfigMapSync",
            "bad target name",
            "source: {name: app}\ntargetName: '-x'\n" + to,
            "spec.targetName"),
        Arguments.of(
            "ConfigMapSync",
            "unknown selector operator",
            "source: {name: app}\ndestinations: {namespaceSelector: {matchExpressions: [{key: team, operator: Near}]}}",
            "spec.destinations.namespaceSelector.matchExpressions.operator"),
        Arguments.of("SecretSync", "no source", to, "spec.source: Required value"),
        Arguments.of(
            "SecretSync",
            "bad label value in selector",
            "source: {name: s}\ndestinations: {namespaceSelector: {matchLabels: {team: 'a b'}}}",
            "spec.destinations.namespaceSelector.matchLabels"),
        Arguments.of(
            "ConfigMonitor", "no selector", "configMaps: [app]", "spec.selector: Required value"),
        Arguments.of(
            "ConfigMonitor", "empty selector", "configMaps: [app]\nselector: {}", "spec.selector"),
        Arguments.of(
            "ConfigMonitor",
            "unknown strategy",
            "configMaps: [app]\nselector: {matchLabels: {app: x}}\nstrategy: Restart",
            "spec.strategy"),
        Arguments.of(
            "ConfigMonitor",
            "debounce too long",
            "configMaps: [app]\nselector: {matchLabels: {app: x}}\ndebounceSeconds: 3600",
            "spec.debounceSeconds"),
        Arguments.of(
            "ConfigMonitor",
            "negative debounce",
            "configMaps: [app]\nselector: {matchLabels: {app: x}}\ndebounceSeconds: -1",
            "spec.debounceSeconds"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("invalid")
  void rejected(String kind, String description, String spec, String expectedMessage) {
    String name = description.replaceAll("[^a-z0-9]+", "-");
    assertThatThrownBy(
            () -> Crds.createRaw(client, "config.bosun.dev/v1alpha1", kind, NS, name, spec))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(expectedMessage);
  }

  @Test
  void aMinimalMonitorIsAcceptedAndDefaulted() {
    var created =
        Crds.createRaw(
            client,
            "config.bosun.dev/v1alpha1",
            "ConfigMonitor",
            NS,
            "minimal",
            "configMaps: [app]\nselector: {matchLabels: {app: web}}");
    @SuppressWarnings("unchecked")
    var spec = (Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec).containsEntry("strategy", "RollingUpdate").containsEntry("debounceSeconds", 5);
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"samples/configmapsync.yaml", "samples/configmonitor.yaml"})
  void theSamplesAreAcceptedByTheServer(String sample) throws Exception {
    try (var in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(sample))) {
      for (var item : client.load(in).items()) {
        // Server-side dry run: validated and defaulted by the API server, stored nowhere.
        boolean namespaced = !"Namespace".equals(item.getKind());
        if (namespaced) {
          item.getMetadata().setNamespace(NS); // the sample's own namespaces need not exist here
        }
        var accepted = client.resource(item).dryRun().create();
        assertThat(accepted.getMetadata().getName()).isEqualTo(item.getMetadata().getName());
      }
    }
  }
}
