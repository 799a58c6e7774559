package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A reconciler that keeps a counter in its status and reconciles again at once: each reconcile must
 * start from the count the previous one wrote. A stale primary (the informer not yet holding the
 * last write) would show a count twice.
 */
@ExtendWith(ControlPlaneExtension.class)
class CachedStatusWritesIT {

  private static final int TARGET = 150;

  @Test
  void everyReconcileStartsFromThePreviousOnesWrite() {
    try (KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns = tallyNamespace(client);
      Counting reconciler = new Counting();
      try (OperatorRuntime operator = start(client, ns, reconciler)) {
        Tally tally = new Tally();
        tally.getMetadata().setName("t");
        tally.getMetadata().setNamespace(ns);
        tally.getMetadata().setLabels(Map.of("team", "a"));
        client.resource(tally).create();

        await("the counter reaches " + TARGET)
            .atMost(Duration.ofSeconds(120))
            .until(() -> reconciler.seen.contains(TARGET));
        assertThat(reconciler.seen)
            .as("the counts the reconciles started from")
            .doesNotHaveDuplicates()
            .startsWith(0, 1, 2)
            .hasSize(TARGET + 1);
        assertThat(
                client.resources(Tally.class).inNamespace(ns).withName("t").get().getStatus().count)
            .isEqualTo(TARGET);
        // The status writer owns the status and nothing else: its apply carries no label, so a
        // user's own apply can still remove one.
        assertThat(
                client
                    .resources(Tally.class)
                    .inNamespace(ns)
                    .withName("t")
                    .get()
                    .getMetadata()
                    .getManagedFields())
            .filteredOn(m -> "tally-test".equals(m.getManager()))
            .singleElement()
            .satisfies(
                m ->
                    assertThat(m.getFieldsV1().getAdditionalProperties())
                        .containsOnlyKeys("f:status"));
      }
    }
  }

  /**
   * A reconcile still running when its resource is deleted and created again under the same name (a
   * GitOps replace) must not write the old resource's status onto the new one.
   */
  @Test
  void aStatusWriteForADeletedResourceNeverLandsOnItsNamesake() throws Exception {
    try (KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns = tallyNamespace(client);
      Holding reconciler = new Holding();
      try (OperatorRuntime operator = start(client, ns, reconciler)) {
        Tally old = new Tally();
        old.getMetadata().setName("t");
        old.getMetadata().setNamespace(ns);
        client.resource(old).create();
        assertThat(reconciler.entered.await(60, java.util.concurrent.TimeUnit.SECONDS))
            .as("the first reconcile started")
            .isTrue();
        client
            .resources(Tally.class)
            .inNamespace(ns)
            .withName("t")
            .withTimeout(30, java.util.concurrent.TimeUnit.SECONDS)
            .delete();
        Tally again = new Tally();
        again.getMetadata().setName("t");
        again.getMetadata().setNamespace(ns);
        String newUid = client.resource(again).create().getMetadata().getUid();
        reconciler.release.countDown();
        await("the held reconcile ended")
            .atMost(Duration.ofSeconds(60))
            .until(() -> reconciler.outcome.get() != null);
        assertThat(reconciler.outcome.get())
            .as("the old reconcile's write")
            .isNotEqualTo("written");
        Tally now = client.resources(Tally.class).inNamespace(ns).withName("t").get();
        assertThat(now.getMetadata().getUid()).isEqualTo(newUid);
        assertThat(now.getStatus() == null ? 0 : now.getStatus().count)
            .as("the new resource's count, never the old reconcile's 999")
            .isNotEqualTo(999);
      }
    }
  }

  /** The Tally CRD installed and a new namespace for one test. */
  private static String tallyNamespace(KubernetesClient client) {
    Crds.apply(client, crd());
    return Crds.namespace(client, "tally-" + System.nanoTime() % 100000, Map.of(), Map.of());
  }

  /** An operator running {@code reconciler} on {@code ns} only. */
  private static OperatorRuntime start(
      KubernetesClient client, String ns, Reconciler<Tally> reconciler) {
    return new OperatorRuntime(
            OperatorSettings.local("tally-test").watching(java.util.Set.of(ns)).withHttpPort(-1),
            client)
        .register(reconciler)
        .start();
  }

  /** Holds its first reconcile until released, then writes a count of 999. */
  @ControllerConfiguration(name = "tally-held", fieldManager = "tally-test")
  static final class Holding implements Reconciler<Tally> {

    final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicReference<String> outcome =
        new java.util.concurrent.atomic.AtomicReference<>();

    @Override
    public UpdateControl<Tally> reconcile(Tally tally, Context<Tally> context)
        throws InterruptedException {
      if (entered.getCount() == 0) {
        return UpdateControl.noUpdate();
      }
      entered.countDown();
      release.await(60, java.util.concurrent.TimeUnit.SECONDS);
      TallyStatus next = new TallyStatus();
      next.count = 999;
      try {
        CachedStatusWrites.applyIfChanged(tally, next, context);
        outcome.set("written");
      } catch (io.fabric8.kubernetes.client.KubernetesClientException refused) {
        outcome.set("refused: " + refused.getCode());
      }
      return UpdateControl.noUpdate();
    }
  }

  /** Counts up to the target, one status write per reconcile, and reconciles again at once. */
  @ControllerConfiguration(name = "tally", fieldManager = "tally-test")
  static final class Counting implements Reconciler<Tally> {

    final List<Integer> seen = new CopyOnWriteArrayList<>();

    @Override
    public UpdateControl<Tally> reconcile(Tally tally, Context<Tally> context) {
      int count = tally.getStatus() == null ? 0 : tally.getStatus().count;
      seen.add(count);
      if (count >= TARGET) {
        return UpdateControl.noUpdate();
      }
      TallyStatus next = new TallyStatus();
      next.count = count + 1;
      CachedStatusWrites.applyIfChanged(tally, next, context);
      return UpdateControl.<Tally>noUpdate().rescheduleAfter(Duration.ofMillis(1));
    }
  }

  /** A test resource whose status holds a counter. */
  @Group("test.bosun.dev")
  @Version("v1")
  @Kind("Tally")
  public static final class Tally extends CustomResource<Void, TallyStatus> implements Namespaced {}

  /** The counter. */
  public static final class TallyStatus {
    public int count;
  }

  private static CustomResourceDefinition crd() {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName("tallies.test.bosun.dev")
        .endMetadata()
        .withNewSpec()
        .withGroup("test.bosun.dev")
        .withScope("Namespaced")
        .withNewNames()
        .withKind("Tally")
        .withPlural("tallies")
        .withSingular("tally")
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSubresources()
        .withNewStatus()
        .endStatus()
        .endSubresources()
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }
}
