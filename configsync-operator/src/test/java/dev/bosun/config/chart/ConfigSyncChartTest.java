package dev.bosun.config.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;
import static dev.bosun.config.ConfigSyncOperator.REQUIRE_DESTINATION_CONSENT;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.NamespaceScopedChartContract;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.Main;
import dev.bosun.config.sync.Consent;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's Helm chart, linted and rendered in-process by helm-java: what it installs, the
 * RBAC it grants (exactly what the operator needs, cluster-wide or in the watched namespaces with
 * only Namespace objects read cluster-wide, no wildcards), the hardening of the pod, the
 * environment contract with {@link OperatorSettings} and {@link Main}, its values schema, the CRD
 * copies it ships, and the first sync its notes show.
 */
class ConfigSyncChartTest extends NamespaceScopedChartContract {

  private static final Path CRD_SOURCES = Path.of("..", "crds", "config.bosun.dev");
  private static final List<String> CRD_FILES =
      List.of(
          "configmapsyncs.config.bosun.dev-v1.yml",
          "configmonitors.config.bosun.dev-v1.yml",
          "secretsyncs.config.bosun.dev-v1.yml");
  private static final KubernetesSerialization SERIALIZATION = HelmChartFixture.serialization();

  private static final HelmChartFixture CHART = moduleChart();

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      permissions(
          grants(
              "config.bosun.dev",
              List.of("configmapsyncs", "secretsyncs", "configmonitors"),
              "get list watch patch update"),
          grants(
              "config.bosun.dev",
              List.of("configmapsyncs/status", "secretsyncs/status", "configmonitors/status"),
              "get patch update"),
          grants("", List.of("configmaps", "secrets"), "get list watch create patch update delete"),
          grants("", "namespaces", "get list watch"),
          grants("", "pods", "list delete"),
          grants("", "events", "create patch update"),
          grants("apps", List.of("deployments", "statefulsets", "daemonsets"), "get list patch"));

  /** Destination consent and selectors are read from Namespace objects, whatever the scope. */
  private static final Set<String> NAMESPACE_READS =
      permissions(grants("", "namespaces", "get list watch"));

  ConfigSyncChartTest() {
    super(CHART, ConfigSyncOperator.NAME, "config.bosun.dev", OPERATOR_PERMISSIONS);
  }

  @Override
  protected Set<String> clusterScopedReads() {
    return NAMESPACE_READS;
  }

  @Test
  void shipsTheCrdsOfExactlyItsKinds() {
    assertThat(CHART.shippedCrds()).isEqualTo(CRD_FILES);
  }

  @Test
  void lintFailsWhenTheConsentSettingBreaksTheSchema(@TempDir Path copy) {
    HelmChartFixture broken = CHART.copyTo(copy);
    broken.editValues(
        "\nrequireDestinationConsent: true\n", "\nrequireDestinationConsent: \"yes\"\n");

    LintResult result = broken.lint();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages()))
        .contains("schema")
        .contains("requireDestinationConsent");
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    // The webhook's variables are WebhookChartContract's.
    Deployment deployment = only(CHART.render("webhook.enabled", "false"), Deployment.class);
    Map<String, EnvVar> env = env(deployment);

    assertThat(env)
        .containsOnlyKeys(
            OperatorSettings.WATCH_NAMESPACES,
            OperatorSettings.LEADER_ELECTION,
            OperatorSettings.LEASE_NAMESPACE,
            OperatorSettings.HTTP_PORT,
            "BOSUN_LOG_LEVEL",
            "JAVA_TOOL_OPTIONS",
            REQUIRE_DESTINATION_CONSENT);
    // By default the operator copies into any namespace: it watches all of them.
    assertThat(env.get(OperatorSettings.WATCH_NAMESPACES).getValue()).isEmpty();
    Map<String, String> resolved =
        assertDefaultSettingsEnv(deployment, ConfigSyncOperator.NAME, NAMESPACE);
    assertThat(Main.destinationConsentRequired(resolved)).isTrue();
  }

  @Test
  void destinationConsentIsRequiredUnlessTurnedOff() {
    Deployment byDefault = only(CHART.render(), Deployment.class);
    Deployment turnedOff =
        only(CHART.render("requireDestinationConsent", "false"), Deployment.class);
    Deployment explicitlyOn =
        only(CHART.render("requireDestinationConsent", "true"), Deployment.class);

    assertThat(env(byDefault).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("true");
    assertThat(env(explicitlyOn).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("true");
    assertThat(env(turnedOff).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("false");
    // Main parses the value strictly: what the chart writes must be what it accepts.
    assertThat(Main.destinationConsentRequired(resolvedEnv(byDefault, NAMESPACE))).isTrue();
    assertThat(Main.destinationConsentRequired(resolvedEnv(turnedOff, NAMESPACE))).isFalse();
  }

  @Test
  void notesShowAFirstConfigMapSyncWithConsentOnBothSides() {
    String notes = CHART.notes();

    assertThat(notes)
        .contains(SOURCE_LABEL + "=true")
        .contains(ALLOW_SYNC_TO)
        .contains(ACCEPT_SYNC_FROM)
        .contains("\"*\"")
        .contains("kubectl get configmapsyncs -A -w");
    // The example is a heredoc the user pastes: a ConfigMapSync of the shipped CRD, its source
    // ConfigMap and the destination namespace, consenting as the operator checks it.
    List<HasMetadata> objects = HelmChartFixture.parse(HelmChartFixture.heredoc(notes));
    // Generic whether or not the generated ConfigMapSync class is registered for deserializing.
    assertThat(objects)
        .map(HasMetadata::getKind)
        .containsExactlyInAnyOrder("Namespace", "Namespace", "ConfigMap", "ConfigMapSync");
    GenericKubernetesResource sync =
        SERIALIZATION.convertValue(
            objects.stream().filter(o -> o.getKind().equals("ConfigMapSync")).findFirst().get(),
            GenericKubernetesResource.class);
    CustomResourceDefinition crd =
        HelmChartFixture.read(
            CRD_SOURCES.resolve("configmapsyncs.config.bosun.dev-v1.yml"),
            CustomResourceDefinition.class);
    CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
    assertThat(sync.getApiVersion()).isEqualTo(crd.getSpec().getGroup() + "/" + version.getName());
    assertThat(sync.getKind()).isEqualTo(crd.getSpec().getNames().getKind());
    assertThat(sync.getMetadata().getName()).isNotBlank();
    assertConforms(
        sync.getAdditionalProperties().get("spec"),
        version.getSchema().getOpenAPIV3Schema().getProperties().get("spec"),
        "spec");

    ConfigMapSync typed = SERIALIZATION.unmarshal(SERIALIZATION.asYaml(sync), ConfigMapSync.class);
    String sourceNamespace = typed.getMetadata().getNamespace();
    ConfigMap source = only(objects, ConfigMap.class);
    assertThat(source.getMetadata().getNamespace()).isEqualTo(sourceNamespace).isNotBlank();
    assertThat(source.getMetadata().getName()).isEqualTo(typed.getSpec().getSource().getName());
    assertThat(source.getMetadata().getLabels()).containsEntry(SOURCE_LABEL, "true");
    assertThat(source.getData()).isNotEmpty();

    List<String> destinations = typed.getSpec().getDestinations().getNamespaces();
    assertThat(destinations).isNotEmpty().doesNotContain(sourceNamespace);
    Map<String, Namespace> namespaces =
        all(objects, Namespace.class).stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    assertThat(namespaces)
        .containsKey(sourceNamespace)
        .containsKeys(destinations.toArray(String[]::new));
    for (String destination : destinations) {
      assertThat(Consent.refusal(source, namespaces.get(destination), true))
          .as("the operator's consent check for %s", destination)
          .isEmpty();
    }
  }

  @Test
  void notesSayWhenDestinationConsentIsOff() {
    assertThat(CHART.notes()).doesNotContain("requireDestinationConsent=false");
    assertThat(CHART.notes("requireDestinationConsent", "false"))
        .contains("requireDestinationConsent=false")
        .contains("kubectl get configmapsyncs -A -w");
  }

  /**
   * Checks a value against a CRD's structural schema the way the API server would: types, required
   * and unknown fields, enums, patterns and lengths (CEL rules are left to the operator's tests).
   */
  private static void assertConforms(Object value, JSONSchemaProps schema, String path) {
    assertThat(value).as(path).isNotNull();
    switch (schema.getType()) {
      case "object" -> {
        assertThat(value).as(path).isInstanceOf(Map.class);
        Map<?, ?> object = (Map<?, ?>) value;
        if (schema.getRequired() != null) {
          assertThat(object.keySet())
              .as(path)
              .map(String::valueOf)
              .containsAll(schema.getRequired());
        }
        if (schema.getProperties() != null && !schema.getProperties().isEmpty()) {
          assertThat(object.keySet())
              .as(path + ": unknown fields")
              .map(String::valueOf)
              .allMatch(schema.getProperties()::containsKey);
          object.forEach(
              (key, field) ->
                  assertConforms(field, schema.getProperties().get(key), path + "." + key));
        }
        if (schema.getMinProperties() != null) {
          assertThat(object)
              .as(path)
              .hasSizeGreaterThanOrEqualTo(schema.getMinProperties().intValue());
        }
      }
      case "array" -> {
        assertThat(value).as(path).isInstanceOf(List.class);
        List<?> items = (List<?>) value;
        if (schema.getMaxItems() != null) {
          assertThat(items).as(path).hasSizeLessThanOrEqualTo(schema.getMaxItems().intValue());
        }
        for (int i = 0; i < items.size(); i++) {
          assertConforms(items.get(i), schema.getItems().getSchema(), path + "[" + i + "]");
        }
      }
      case "string" -> {
        assertThat(value).as(path).isInstanceOf(String.class);
        String string = (String) value;
        if (schema.getMinLength() != null) {
          assertThat(string).as(path).hasSizeGreaterThanOrEqualTo(schema.getMinLength().intValue());
        }
        if (schema.getMaxLength() != null) {
          assertThat(string).as(path).hasSizeLessThanOrEqualTo(schema.getMaxLength().intValue());
        }
        if (schema.getPattern() != null) {
          assertThat(string).as(path).containsPattern(schema.getPattern());
        }
        if (schema.getEnum() != null && !schema.getEnum().isEmpty()) {
          assertThat(schema.getEnum()).as(path).anyMatch(e -> e.asText().equals(string));
        }
      }
      default -> throw new AssertionError(path + ": unexpected schema type " + schema.getType());
    }
  }

  /** Values of its own settings the schema refuses (the shared ones are the contract's). */
  static Stream<Arguments> valuesTheSchemaRejects() {
    return Stream.of(
        Arguments.of(List.of("requireDestinationConsent", "maybe"), "/requireDestinationConsent"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesTheSchemaRejects")
  void schemaRejectsInvalidValues(List<String> keysAndValues, String where) {
    CHART.assertSchemaRejects(keysAndValues, where);
  }
}
