package dev.bosun.config.bench;

import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_LABEL;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.ConfigSyncUnderTest;
import dev.bosun.config.Main;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import dev.bosun.config.v1alpha1.ConfigMapSyncSpec;
import dev.bosun.config.v1alpha1.configmapsyncspec.Destinations;
import dev.bosun.config.v1alpha1.configmapsyncspec.Source;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One source synced to N namespaces: how long an update takes to reach every copy through the
 * operator, against a plain client writing the same N copies in the same process; then the
 * operator's writes while idle. Run with {@code ./bosun bench configsync} ({@code
 * -Dbench.namespaces=200 -Dbench.idleSeconds=60}).
 */
public final class ConfigSyncBenchmark {

  private static final int THREADS = 8;
  private static final String SRC = "bench-src";
  private static final String LABEL = "bosun-bench";

  private ConfigSyncBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = Integer.getInteger("bench.namespaces", 200);
    int idleSeconds = Integer.getInteger("bench.idleSeconds", 60);
    LocalControlPlane plane =
        LocalControlPlane.start(Files.createTempDirectory("bosun-bench"), false);
    try (KubernetesClient admin = plane.adminClient()) {
      Crds.install(admin, ConfigSyncUnderTest.CRDS);
      List<String> destinations = destinations(admin, count);
      long plain = plainClientNanos(admin, destinations);
      OperatorRun operator = operatorRun(plane, admin, count, idleSeconds);
      print(count, idleSeconds, plain, operator);
    } finally {
      plane.close();
    }
  }

  /** What the operator did: the update's time to every copy, its requests while idle after. */
  private record OperatorRun(long nanos, List<String> idleWrites, List<String> idleReads) {}

  /** Creates the source namespace and {@code count} destination namespaces that accept syncs. */
  private static List<String> destinations(KubernetesClient admin, int count) {
    step("creating " + count + " destination namespaces");
    Crds.namespace(admin, SRC, Map.of(), Map.of());
    List<String> destinations = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String ns = String.format("bench-dst-%03d", i);
      Crds.namespace(admin, ns, Map.of(LABEL, "dst"), Map.of(ACCEPT_SYNC_FROM, "*"));
      destinations.add(ns);
    }
    return destinations;
  }

  /** The baseline: a plain client updates the source and writes every copy itself. */
  private static long plainClientNanos(KubernetesClient admin, List<String> destinations)
      throws Exception {
    int count = destinations.size();
    step("plain client: update the source, write " + count + " copies, until all hold it");
    SharedIndexInformer<ConfigMap> plainCopies =
        admin.configMaps().inAnyNamespace().withLabel(LABEL, "plain-copy").inform();
    writePlain(admin, destinations, "v1"); // warm-up, not measured
    waitForValue(plainCopies, count, "v1", System.nanoTime());
    long start = System.nanoTime();
    admin
        .configMaps()
        .inNamespace(SRC)
        .resource(configMap("plain-src", "v2", Map.of()))
        .serverSideApply();
    writePlain(admin, destinations, "v2");
    waitForValue(plainCopies, count, "v2", start);
    long plain = System.nanoTime() - start;
    plainCopies.close();
    return plain;
  }

  /** The operator, as Main builds it, syncing one source to the same namespaces; then idle. */
  private static OperatorRun operatorRun(
      LocalControlPlane plane, KubernetesClient admin, int count, int idleSeconds)
      throws Exception {
    step("operator: a ConfigMapSync to the same " + count + " namespaces");
    WriteCounter writes = new WriteCounter();
    KubernetesClient operatorClient =
        plane.adminClient(b -> b.addOrReplaceInterceptor("writes", writes));
    OperatorRuntime operator =
        Main.create(
                OperatorSettings.local(ConfigSyncOperator.NAME).withHttpPort(-1),
                operatorClient,
                true)
            .start();
    SharedIndexInformer<ConfigMap> copies =
        admin
            .configMaps()
            .inAnyNamespace()
            .withLabel(ConfigSyncOperator.SYNC_NAME_LABEL, "bench")
            .inform();
    admin
        .configMaps()
        .inNamespace(SRC)
        .resource(configMap("op-src", "v1", Map.of(SOURCE_LABEL, "true")))
        .serverSideApply();
    admin.resources(ConfigMapSync.class).inNamespace(SRC).resource(sync()).create();
    waitForValue(copies, count, "v1", System.nanoTime()); // initial sync, not measured
    long start = System.nanoTime();
    admin
        .configMaps()
        .inNamespace(SRC)
        .resource(configMap("op-src", "v2", Map.of(SOURCE_LABEL, "true")))
        .serverSideApply();
    waitForValue(copies, count, "v2", start);
    long op = System.nanoTime() - start;
    copies.close();

    step("operator idle for " + idleSeconds + " s after convergence");
    writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
    int readsAtIdle = writes.readCount();
    List<String> idle = writes.writesDuring(Duration.ofSeconds(idleSeconds));
    List<String> idleReads = writes.readsSince(readsAtIdle);
    operator.close();
    operatorClient.close();
    return new OperatorRun(op, idle, idleReads);
  }

  private static void print(int count, int idleSeconds, long plain, OperatorRun operator) {
    long op = operator.nanos();
    List<String> idle = operator.idleWrites();
    List<String> idleReads = operator.idleReads();
    System.out.printf(
        "%nConfigSync benchmark: one source, %d destination namespaces, Kubernetes %s%n",
        count, LocalControlPlane.VERSION);
    System.out.printf(
        "  plain client (%d threads): update reaches all copies in %7.2f s%n",
        THREADS, plain / 1e9);
    System.out.printf(
        "  operator:                   update reaches all copies in %7.2f s%n", op / 1e9);
    System.out.printf("  time ratio operator/plain: %.2f (target <= 1.5)%n", (double) op / plain);
    System.out.printf(
        "  operator writes during %d s idle: %d (target 0)%n", idleSeconds, idle.size());
    idle.stream().limit(10).forEach(w -> System.out.println("    " + w));
    System.out.printf(
        "  idle API requests per minute per synced copy: %.3f reads, %.3f writes (watches not"
            + " counted)%n",
        idleReads.size() / (idleSeconds / 60.0) / count,
        idle.size() / (idleSeconds / 60.0) / count);
    idleReads.stream().limit(10).forEach(r -> System.out.println("    " + r));
  }

  private static ConfigMapSync sync() {
    ConfigMapSyncSpec spec = new ConfigMapSyncSpec();
    Source source = new Source();
    source.setName("op-src");
    spec.setSource(source);
    Destinations d = new Destinations();
    d.setNamespaceSelector(new LabelSelectorBuilder().addToMatchLabels(LABEL, "dst").build());
    spec.setDestinations(d);
    ConfigMapSync sync = new ConfigMapSync();
    sync.setMetadata(new ObjectMetaBuilder().withName("bench").withNamespace(SRC).build());
    sync.setSpec(spec);
    return sync;
  }

  private static ConfigMap configMap(String name, String value, Map<String, String> labels) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(SRC)
        .withLabels(labels)
        .addToAnnotations(ALLOW_SYNC_TO, "*")
        .endMetadata()
        .addToData("value", value)
        .build();
  }

  /** What the operator does, done by hand: the same copies, by server-side apply, in parallel. */
  private static void writePlain(KubernetesClient client, List<String> namespaces, String value)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<?>> futures = new ArrayList<>();
    for (String ns : namespaces) {
      futures.add(
          pool.submit(
              () ->
                  client
                      .configMaps()
                      .inNamespace(ns)
                      .resource(
                          new ConfigMapBuilder()
                              .withNewMetadata()
                              .withName("plain-copy")
                              .withNamespace(ns)
                              .addToLabels(LABEL, "plain-copy")
                              .endMetadata()
                              .addToData("value", value)
                              .build())
                      .fieldManager("plain")
                      .forceConflicts()
                      .serverSideApply()));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
  }

  private static void waitForValue(
      SharedIndexInformer<ConfigMap> informer, int count, String value, long start) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                informer.getStore().list().stream()
                        .filter(c -> c.getData() != null && value.equals(c.getData().get("value")))
                        .count()
                    >= count);
  }

  private static void step(String what) {
    System.out.println("==> " + what);
  }
}
