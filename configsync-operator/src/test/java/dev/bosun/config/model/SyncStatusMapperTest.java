package dev.bosun.config.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.bosun.config.model.DestinationResult.State;
import dev.bosun.config.v1alpha1.ConfigMapSyncSpec;
import dev.bosun.config.v1alpha1.SecretSyncSpec;
import dev.bosun.config.v1alpha1.configmapsyncstatus.Destinations;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SyncStatusMapperTest {

  private static final SyncStatusMapper MAP = SyncStatusMapper.INSTANCE;

  private static final String FULL =
      """
      source: {name: app}
      targetName: app-copy
      destinations:
        namespaces: [b, a, b]
        namespaceSelector:
          matchLabels: {env: prod}
          matchExpressions:
            - {key: team, operator: In, values: [x, y]}
            - {key: legacy, operator: DoesNotExist}
      """;

  private static final String MINIMAL =
      """
      source: {name: app}
      destinations:
        namespaces: [a]
      """;

  private static final String SELECTOR_ONLY =
      """
      source: {name: app}
      destinations:
        namespaceSelector: {}
      """;

  private static final List<DestinationResult> RESULTS =
      List.of(
          new DestinationResult("a", State.SYNCED, "12", "in sync"),
          new DestinationResult("b", State.CONFLICT, null, "exists"),
          new DestinationResult("c", State.NOT_ALLOWED, null, "not allowed"),
          new DestinationResult("d", State.ERROR, null, "write failed"));

  private static LabelSelector expectedSelector() {
    return new LabelSelectorBuilder()
        .addToMatchLabels("env", "prod")
        .addNewMatchExpression()
        .withKey("team")
        .withOperator("In")
        .withValues("x", "y")
        .endMatchExpression()
        .addNewMatchExpression()
        .withKey("legacy")
        .withOperator("DoesNotExist")
        .endMatchExpression()
        .build();
  }

  @Test
  void configMapSyncSpecToRequest() {
    SyncRequest r = MAP.request(Serialization.unmarshal(FULL, ConfigMapSyncSpec.class));

    assertThat(r.sourceName()).isEqualTo("app");
    assertThat(r.targetName()).isEqualTo("app-copy");
    assertThat(r.namespaces()).isEqualTo(Set.of("a", "b"));
    assertThat(r.selector()).isEqualTo(expectedSelector());
  }

  @Test
  void secretSyncSpecToRequest() {
    SyncRequest r = MAP.request(Serialization.unmarshal(FULL, SecretSyncSpec.class));

    assertThat(r.sourceName()).isEqualTo("app");
    assertThat(r.targetName()).isEqualTo("app-copy");
    assertThat(r.namespaces()).isEqualTo(Set.of("a", "b"));
    assertThat(r.selector()).isEqualTo(expectedSelector());
  }

  @Test
  void targetNameDefaultsToTheSourceNameAndSelectorToNone() {
    SyncRequest cm = MAP.request(Serialization.unmarshal(MINIMAL, ConfigMapSyncSpec.class));
    SyncRequest secret = MAP.request(Serialization.unmarshal(MINIMAL, SecretSyncSpec.class));

    for (SyncRequest r : List.of(cm, secret)) {
      assertThat(r.targetName()).isEqualTo("app");
      assertThat(r.namespaces()).containsExactly("a");
      assertThat(r.selector()).isNull();
    }
  }

  @Test
  void withoutNamespacesTheListIsEmptyAndAnEmptySelectorStaysEmpty() {
    SyncRequest cm = MAP.request(Serialization.unmarshal(SELECTOR_ONLY, ConfigMapSyncSpec.class));
    SyncRequest secret = MAP.request(Serialization.unmarshal(SELECTOR_ONLY, SecretSyncSpec.class));

    for (SyncRequest r : List.of(cm, secret)) {
      assertThat(r.namespaces()).isEmpty();
      assertThat(r.selector()).isNotNull();
      assertThat(r.selector().getMatchLabels()).isNullOrEmpty();
      assertThat(r.selector().getMatchExpressions()).isNullOrEmpty();
    }
  }

  @Test
  void resultsToConfigMapSyncStatusEntries() {
    List<Destinations> entries = MAP.configMapDestinations(RESULTS);

    assertThat(entries)
        .extracting(
            Destinations::getNamespace,
            d -> d.getState().getValue(),
            Destinations::getSourceResourceVersion,
            Destinations::getMessage)
        .containsExactly(
            tuple("a", "Synced", "12", "in sync"),
            tuple("b", "Conflict", null, "exists"),
            tuple("c", "NotAllowed", null, "not allowed"),
            tuple("d", "Error", null, "write failed"));
  }

  @Test
  void resultsToSecretSyncStatusEntries() {
    List<dev.bosun.config.v1alpha1.secretsyncstatus.Destinations> entries =
        MAP.secretDestinations(RESULTS);

    assertThat(entries)
        .extracting(
            dev.bosun.config.v1alpha1.secretsyncstatus.Destinations::getNamespace,
            d -> d.getState().getValue(),
            dev.bosun.config.v1alpha1.secretsyncstatus.Destinations::getSourceResourceVersion,
            dev.bosun.config.v1alpha1.secretsyncstatus.Destinations::getMessage)
        .containsExactly(
            tuple("a", "Synced", "12", "in sync"),
            tuple("b", "Conflict", null, "exists"),
            tuple("c", "NotAllowed", null, "not allowed"),
            tuple("d", "Error", null, "write failed"));
  }

  @Test
  void everyStateHasAStatusValue() {
    for (State state : State.values()) {
      assertThat(MAP.configMapState(state)).as("%s", state).isNotNull();
      assertThat(MAP.secretState(state)).as("%s", state).isNotNull();
    }
    assertThat(MAP.configMapState(State.NOT_ALLOWED).getValue()).isEqualTo("NotAllowed");
    assertThat(MAP.secretState(State.NOT_ALLOWED).getValue()).isEqualTo("NotAllowed");
  }

  @Test
  void notAllowedSerializesAsTheSchemaValue() {
    Destinations entry =
        MAP.configMapDestination(new DestinationResult("c", State.NOT_ALLOWED, null, "m"));

    assertThat(Serialization.asJson(entry)).contains("\"state\":\"NotAllowed\"");
  }
}
