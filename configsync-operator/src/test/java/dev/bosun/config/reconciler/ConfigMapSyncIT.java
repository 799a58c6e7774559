package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.ConfigSyncUnderTest;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import dev.bosun.config.v1alpha1.ConfigMapSyncSpec;
import dev.bosun.config.v1alpha1.configmapsyncspec.Destinations;
import dev.bosun.config.v1alpha1.configmapsyncspec.Source;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ConfigMapSync on the real control plane: consent, ownership, updates and every cleanup path. */
@ExtendWith(ControlPlaneExtension.class)
class ConfigMapSyncIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  @RegisterExtension static final RunningOperator operator = ConfigSyncUnderTest.operator();
  private static final KubernetesClient client = operator.testClient;

  static String ns(String prefix, Map<String, String> labels, Map<String, String> annotations) {
    return ConfigSyncUnderTest.namespace(client, prefix, labels, annotations);
  }

  static ConfigMap source(String ns, String name, String allowTo, Map<String, String> data) {
    ConfigMapBuilder b =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .addToLabels(SOURCE_LABEL, "true")
            .endMetadata()
            .withData(data);
    if (allowTo != null) {
      b.editMetadata().addToAnnotations(ALLOW_SYNC_TO, allowTo).endMetadata();
    }
    return client.configMaps().inNamespace(ns).resource(b.build()).create();
  }

  static ConfigMapSync sync(
      String ns, String name, String source, List<String> to, Map<String, String> selector) {
    ConfigMapSyncSpec spec = new ConfigMapSyncSpec();
    Source s = new Source();
    s.setName(source);
    spec.setSource(s);
    Destinations d = new Destinations();
    d.setNamespaces(to);
    if (selector != null) {
      d.setNamespaceSelector(new LabelSelectorBuilder().withMatchLabels(selector).build());
    }
    spec.setDestinations(d);
    ConfigMapSync sync = new ConfigMapSync();
    sync.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
    sync.setSpec(spec);
    return client.resources(ConfigMapSync.class).inNamespace(ns).resource(sync).create();
  }

  static ConfigMapSync get(String ns, String name) {
    return client.resources(ConfigMapSync.class).inNamespace(ns).withName(name).get();
  }

  /** The sync's status, failing (and so retried by Awaitility) until it has one. */
  static dev.bosun.config.v1alpha1.ConfigMapSyncStatus status(String ns, String name) {
    ConfigMapSync sync = get(ns, name);
    assertThat(sync.getStatus()).as("status of %s/%s", ns, name).isNotNull();
    return sync.getStatus();
  }

  static Map<String, String> copyData(String ns, String name) {
    ConfigMap cm = client.configMaps().inNamespace(ns).withName(name).get();
    return cm == null ? null : cm.getData();
  }

  @Test
  void copiesReachEveryConsentingDestinationFollowTheSourceAndGoAway() {
    String src = ns("src", Map.of(), Map.of());
    String team = src; // a label value unique to this test
    String byLabel = ns("dst-label", Map.of("team", team), Map.of(ACCEPT_SYNC_FROM, src));
    String byName = ns("dst-name", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    source(src, "app-config", "*", Map.of("a", "1", "b", "2"));
    sync(src, "share", "app-config", List.of(byName), Map.of("team", team));

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(copyData(byLabel, "app-config")).isEqualTo(Map.of("a", "1", "b", "2"));
              assertThat(copyData(byName, "app-config")).isEqualTo(Map.of("a", "1", "b", "2"));
              assertThat(Conditions.isTrue(status(src, "share").getConditions(), "Ready")).isTrue();
              assertThat(status(src, "share").getSyncedCount()).isEqualTo(2);
            });
    ConfigMap copy = client.configMaps().inNamespace(byName).withName("app-config").get();
    assertThat(copy.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", ConfigSyncOperator.NAME)
        .containsEntry(ConfigSyncOperator.SYNC_NAMESPACE_LABEL, src);
    assertThat(copy.getMetadata().getAnnotations())
        .containsEntry(ConfigSyncOperator.SOURCE_ANNOTATION, src + "/app-config");

    // An update reaches every copy; a key removed from the source disappears from the copies.
    client
        .configMaps()
        .inNamespace(src)
        .withName("app-config")
        .edit(
            cm -> {
              cm.setData(Map.of("a", "10"));
              return cm;
            });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(copyData(byLabel, "app-config")).isEqualTo(Map.of("a", "10"));
              assertThat(copyData(byName, "app-config")).isEqualTo(Map.of("a", "10"));
            });

    // A namespace created later that matches gets its copy without anyone touching the sync.
    String later = ns("dst-later", Map.of("team", team), Map.of(ACCEPT_SYNC_FROM, src));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> assertThat(copyData(later, "app-config")).isEqualTo(Map.of("a", "10")));

    // A namespace that stops matching loses its copy.
    client
        .namespaces()
        .withName(byLabel)
        .edit(
            n -> {
              n.getMetadata().getLabels().remove("team");
              return n;
            });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(copyData(byLabel, "app-config")).isNull());

    // Deleting the sync removes the remaining copies (finalizer), then the sync itself.
    client.resources(ConfigMapSync.class).inNamespace(src).withName("share").delete();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(copyData(byName, "app-config")).isNull();
              assertThat(copyData(later, "app-config")).isNull();
              assertThat(get(src, "share")).isNull();
            });
    assertThat(copyData(src, "app-config"))
        .as("the source is never touched")
        .isEqualTo(Map.of("a", "10"));
  }

  @Test
  void withoutConsentOnEitherSideNothingIsCopied() {
    String src = ns("src", Map.of(), Map.of());
    String consenting = ns("dst-yes", Map.of(), Map.of(ACCEPT_SYNC_FROM, src));
    String refusing = ns("dst-no", Map.of(), Map.of());
    String other = ns("dst-other", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    // The source's owner allows two of the three; "refusing" does not accept copies itself.
    source(src, "settings", consenting + ", " + refusing, Map.of("k", "v"));
    sync(src, "share", "settings", List.of(consenting, refusing, other), null);

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var st = status(src, "share");
              assertThat(st.getDestinations())
                  .extracting(d -> d.getNamespace() + "=" + d.getState().getValue())
                  .containsExactlyInAnyOrder(
                      consenting + "=Synced", refusing + "=NotAllowed", other + "=NotAllowed");
              var ready = Conditions.find(st.getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("NotAllowed");
            });
    assertThat(copyData(consenting, "settings")).isEqualTo(Map.of("k", "v"));
    assertThat(copyData(refusing, "settings")).isNull();
    assertThat(copyData(other, "settings")).isNull();
    assertThat(get(src, "share").getStatus().getDestinations())
        .filteredOn(d -> d.getNamespace().equals(refusing))
        .singleElement()
        .satisfies(d -> assertThat(d.getMessage()).contains(ACCEPT_SYNC_FROM));
    assertThat(get(src, "share").getStatus().getDestinations())
        .filteredOn(d -> d.getNamespace().equals(other))
        .singleElement()
        .satisfies(d -> assertThat(d.getMessage()).contains(ALLOW_SYNC_TO));
  }

  @Test
  void anObjectBosunDidNotCreateIsNeverOverwritten() {
    String src = ns("src", Map.of(), Map.of());
    String dst = ns("dst", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    client
        .configMaps()
        .inNamespace(dst)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("shared")
                .endMetadata()
                .addToData("theirs", "keep")
                .build())
        .create();
    source(src, "shared", "*", Map.of("ours", "x"));
    sync(src, "share", "shared", List.of(dst), null);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(status(src, "share").getDestinations())
                    .singleElement()
                    .satisfies(
                        d -> {
                          assertThat(d.getState().getValue()).isEqualTo("Conflict");
                          assertThat(d.getMessage()).contains("never overwrites");
                        }));
    assertThat(copyData(dst, "shared")).isEqualTo(Map.of("theirs", "keep"));
    // Deleting the sync does not delete what it never owned.
    client.resources(ConfigMapSync.class).inNamespace(src).withName("share").delete();
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(get(src, "share")).isNull());
    assertThat(copyData(dst, "shared")).isEqualTo(Map.of("theirs", "keep"));
  }

  @Test
  void aMissingSourceCreatesNothingAndADeletedSourceTakesItsCopiesAlong() {
    String src = ns("src", Map.of(), Map.of());
    String dst = ns("dst", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    sync(src, "share", "later", List.of(dst), null);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var ready =
                  Conditions.find(status(src, "share").getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("SourceNotFound");
              assertThat(ready.getMessage()).contains("does not exist");
            });
    assertThat(copyData(dst, "later")).isNull();

    source(src, "later", "*", Map.of("x", "1"));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(copyData(dst, "later")).isEqualTo(Map.of("x", "1")));
    client.configMaps().inNamespace(src).withName("later").delete();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(copyData(dst, "later")).isNull();
              var ready =
                  Conditions.find(status(src, "share").getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("SourceNotFound");
            });
  }

  @Test
  void cleanupSurvivesAnOperatorRestartAndIdleMeansIdle() {
    String src = ns("src", Map.of(), Map.of());
    String dst = ns("dst", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    source(src, "cfg", "*", Map.of("x", "1"));
    sync(src, "share", "cfg", List.of(dst), null);
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(copyData(dst, "cfg")).isNotNull());
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(Conditions.isTrue(status(src, "share").getConditions(), "Ready"))
                    .isTrue());

    // Converged: nothing is written while nothing changes.
    int before = operator.writes.count();
    await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
    assertThat(operator.writes.since(before)).as("writes while idle").isEmpty();

    operator.stop();
    client.resources(ConfigMapSync.class).inNamespace(src).withName("share").delete();
    // The finalizer holds the sync, and its copy stays, while no operator runs.
    await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> true);
    assertThat(get(src, "share").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(copyData(dst, "cfg")).isNotNull();

    operator.start();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(copyData(dst, "cfg")).isNull();
              assertThat(get(src, "share")).isNull();
            });
  }

  @Test
  void aSelectorTheApiWouldRefuseIsReportedAsInvalidSpecAndChangesNothing() {
    String src = ns("src", Map.of(), Map.of());
    source(src, "cfg", "*", Map.of("x", "1"));
    ConfigMapSync sync = new ConfigMapSync();
    sync.setMetadata(new ObjectMetaBuilder().withName("bad").withNamespace(src).build());
    ConfigMapSyncSpec spec = new ConfigMapSyncSpec();
    Source s = new Source();
    s.setName("cfg");
    spec.setSource(s);
    Destinations d = new Destinations();
    // "In" without values: CEL refuses it where CEL runs; a 1.20 server does not, the operator
    // does.
    d.setNamespaceSelector(
        new LabelSelectorBuilder()
            .addNewMatchExpression()
            .withKey("team")
            .withOperator("In")
            .endMatchExpression()
            .build());
    spec.setDestinations(d);
    sync.setSpec(spec);
    client.resources(ConfigMapSync.class).inNamespace(src).resource(sync).create();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var ready =
                  Conditions.find(status(src, "bad").getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("InvalidSpec");
              assertThat(ready.getMessage())
                  .contains("spec.destinations.namespaceSelector.matchExpressions[0]");
            });
    assertThat(client.v1().events().inNamespace(src).list().getItems())
        .filteredOn(e -> e.getInvolvedObject().getName().equals("bad"))
        .singleElement()
        .satisfies(e -> assertThat(e.getType()).isEqualTo("Warning"));
  }

  @Test
  void everyNameTheServerAcceptsEitherWorksOrIsInvalidSpecNamingTheRule() {
    String src = ns("src", Map.of(), Map.of());
    String dst = ns("dst", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    source(src, "cfg", "*", Map.of("x", "1"));
    // 63 characters with dots: the longest name a label value can hold works.
    String longest = "a.b-" + "c".repeat(59);
    sync(src, longest, "cfg", List.of(dst), null);
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(copyData(dst, "cfg")).isNotNull());

    // 64 characters: the server accepts the sync, the copies' label could not hold its name.
    String tooLong = "d".repeat(64);
    String other = ns("dst2", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    sync(src, tooLong, "cfg", List.of(other), null);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var ready =
                  Conditions.find(status(src, tooLong).getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("InvalidSpec");
              assertThat(ready.getMessage())
                  .contains("metadata.name: the ConfigMapSync name")
                  .contains("is 64 characters long; at most 63 are allowed")
                  .contains("config.bosun.dev/sync-name")
                  .doesNotContain("Exception")
                  .doesNotContain("Status(");
            });
    assertThat(copyData(other, "cfg")).isNull();
  }

  @Test
  void renamingTheCopiesNeverTakesOverAnObjectHoldingTheNewName() {
    String src = ns("src", Map.of(), Map.of());
    String dst = ns("dst", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    source(src, "cfg", "*", Map.of("x", "1"));
    sync(src, "share", "cfg", List.of(dst), null);
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(copyData(dst, "cfg")).isNotNull());
    client
        .configMaps()
        .inNamespace(dst)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("renamed")
                .endMetadata()
                .addToData("theirs", "keep")
                .build())
        .create();

    Edits.edit(
        client.resources(ConfigMapSync.class).inNamespace(src).withName("share"),
        s -> {
          s.getSpec().setTargetName("renamed");
          return s;
        });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status(src, "share").getDestinations())
                  .singleElement()
                  .satisfies(d -> assertThat(d.getState().getValue()).isEqualTo("Conflict"));
              assertThat(copyData(dst, "cfg")).as("the copy under the old name is gone").isNull();
            });
    assertThat(copyData(dst, "renamed")).isEqualTo(Map.of("theirs", "keep"));
  }
}
