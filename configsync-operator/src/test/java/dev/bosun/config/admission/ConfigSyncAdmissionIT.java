package dev.bosun.config.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.AdmissionContract;
import dev.bosun.common.testing.AdmissionUnderTest.Applied;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.config.ConfigSyncUnderTest;
import dev.bosun.config.Main;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The configsync operator's admission webhook on the real API server (1.20, which ignores the CRDs'
 * CEL rules): kubectl apply of each bad ConfigMapSync, SecretSync and ConfigMonitor in the table is
 * refused naming the field, a good one is stored, and with the webhook down creates fail closed
 * while a change, the operator's status write (InvalidSpec, the backstop) and the operator's
 * removal of its finalizer from a deleted sync still pass.
 *
 * <p>The webhook is the operator's own ({@link Main#serveAdmission}) on this JVM, behind the
 * chart's own configuration ({@link AdmissionContract}).
 */
class ConfigSyncAdmissionIT extends AdmissionContract {

  private static final String NS = "configsync-admission";
  private static final String API = "config.bosun.dev/v1alpha1";
  private static final String GOOD_SYNC =
      "source: {name: shop-config}\ndestinations: {namespaces: [team-a]}";
  private static final String IN_WITHOUT_VALUES = "{matchExpressions: [{key: tier, operator: In}]}";

  ConfigSyncAdmissionIT() {
    super(NS, API, ConfigSyncUnderTest.CRDS);
  }

  @Override
  protected AdmissionWebhook serve(WebhookSettings settings) {
    return Main.serveAdmission(client, settings);
  }

  static Stream<Arguments> badObjects() {
    // The CRDs' rule that destinations name namespaces or a selector needs no row: their
    // minProperties holds it on 1.20 too, before any webhook is asked.
    return Stream.of(
        // The CRDs' CEL rules, which this API server does not run.
        Arguments.of(
            "a destination selector In without values",
            "ConfigMapSync",
            "in-no-values",
            "source: {name: shop-config}\ndestinations: {namespaceSelector: "
                + IN_WITHOUT_VALUES
                + "}",
            "spec.destinations.namespaceSelector.matchExpressions[0] (tier In)"),
        Arguments.of(
            "a destination selector Exists with values",
            "SecretSync",
            "exists-values",
            "source: {name: creds}\ndestinations: {namespaceSelector: {matchExpressions:"
                + " [{key: tier, operator: Exists, values: [web]}]}}",
            "spec.destinations.namespaceSelector.matchExpressions[0] (tier Exists)"),
        Arguments.of(
            "a monitor watching nothing",
            "ConfigMonitor",
            "nothing",
            "selector: {matchLabels: {app: shop}}",
            "spec.configMaps, spec.secrets"),
        Arguments.of(
            "a workload selector In without values",
            "ConfigMonitor",
            "monitor-in",
            "configMaps: [shop-config]\nselector: " + IN_WITHOUT_VALUES,
            "spec.selector.matchExpressions[0] (tier In)"),
        // The checks the reconcilers report as InvalidSpec.
        Arguments.of(
            "a name no label value can carry",
            "ConfigMapSync",
            "a".repeat(64),
            GOOD_SYNC,
            "metadata.name"));
  }

  @Order(2)
  @Test
  void goodObjectsAreStored() throws Exception {
    Applied sync = admission.apply(API, "ConfigMapSync", "good", GOOD_SYNC);
    assertThat(sync.exitCode()).as(sync.output()).isZero();
    Applied monitor =
        admission.apply(
            API,
            "ConfigMonitor",
            "good",
            "configMaps: [shop-config]\nselector: {matchLabels: {app: shop}}");
    assertThat(monitor.exitCode()).as(monitor.output()).isZero();
  }

  @Order(3)
  @Test
  void withTheWebhookDownTheOperatorStillWritesStatusAndRemovesItsFinalizer() throws Exception {
    try (RunningOperator operator = ConfigSyncUnderTest.operator().start()) {
      assertThat(admission.apply(API, "ConfigMapSync", "kept", GOOD_SYNC).exitCode()).isZero();
      var kept =
          admission
              .client
              .genericKubernetesResources(API, "ConfigMapSync")
              .inNamespace(NS)
              .withName("kept");
      await("the operator's finalizer")
          .atMost(Duration.ofSeconds(60))
          .until(() -> !kept.get().getMetadata().getFinalizers().isEmpty());
      admission.stopWebhook();

      admission.assertCreateFailsClosed(API, "ConfigMapSync", "unseen", GOOD_SYNC);

      // Updates fail open: the bad change is stored, and the operator reports it in status (a
      // write to the status subresource, which no rule matches).
      Applied change =
          admission.apply(
              API,
              "ConfigMapSync",
              "kept",
              "source: {name: shop-config}\ndestinations: {namespaceSelector: "
                  + IN_WITHOUT_VALUES
                  + "}");
      assertThat(change.exitCode()).as(change.output()).isZero();
      admission.awaitInvalidSpec(
          API, "ConfigMapSync", "kept", "spec.destinations.namespaceSelector");

      // The delete is never sent, and the operator's removal of its finalizer (an update that
      // leaves the spec as it is) fails open: the sync goes.
      assertThat(kept.delete()).isNotEmpty();
      await("the operator removes its finalizer")
          .atMost(Duration.ofSeconds(60))
          .until(() -> kept.get() == null);
    }
  }
}
