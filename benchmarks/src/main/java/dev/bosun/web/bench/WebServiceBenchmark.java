package dev.bosun.web.bench;

import static dev.bosun.web.WebServices.webService;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.AsyncPool;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.KubeletSimulator;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.ReconcileCounter;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.DeploymentDependent;
import dev.bosun.web.dependent.ServiceDependent;
import dev.bosun.web.reconciler.WebServiceReconciler;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * How the WebService operator compares with a plain fabric8 client doing the same work in the same
 * process, on the local control plane: N WebServices until all are Ready, against the same N
 * Deployments and Services created directly until all are rolled out, in alternating rounds whose
 * medians are the figures; then the operator's writes while idle and the heap each side holds after
 * convergence. Run with {@code ./bosun bench} ({@code -Dbench.count=500 -Dbench.idleSeconds=60
 * -Dbench.rounds=5 -Dbench.warmup=500 -Dbench.warmupRounds=8}).
 */
public final class WebServiceBenchmark {

  private static final int THREADS = 8;
  private static final Duration SETTLE = Duration.ofSeconds(5);

  /** Consecutive readings, a second apart, within 200 kB of each other: the heap is steady. */
  private static final int STEADY_READINGS = 3;

  /** The JIT's seconds in an operator warm-up run below which the operator counts as warm. */
  private static final double WARM_JIT_SECONDS = 1.5;

  private WebServiceBenchmark() {}

  public static void main(String[] args) throws Exception {
    // As a deployed operator's main does (OperatorRuntime.runDeployed).
    AsyncPool.ensureTwoThreads();
    int count = Integer.getInteger("bench.count", 500);
    int idleSeconds = Integer.getInteger("bench.idleSeconds", 60);
    int roundCount = Integer.getInteger("bench.rounds", 5);
    int warmUp = Integer.getInteger("bench.warmup", count);
    int warmUpRounds = Integer.getInteger("bench.warmupRounds", 8);
    LocalControlPlane plane =
        LocalControlPlane.start(Files.createTempDirectory("bosun-bench"), false);
    try (KubernetesClient admin = plane.adminClient();
        KubeletSimulator kubelet = new KubeletSimulator(admin, Duration.ofMillis(200)).start()) {
      Crds.install(admin, "webservices.web.bosun.dev");
      warmUp(plane, admin, warmUp, warmUpRounds);

      List<Round> rounds = new ArrayList<>();
      // Nothing a run made is closed before the end: a closed client lets go of what it held
      // seconds later, and that release would come off whichever run is being measured then.
      List<AutoCloseable> held = new ArrayList<>();
      OperatorRun last = null;
      for (int r = 1; r <= roundCount; r++) {
        last = round(plane, admin, r, roundCount, count, rounds, held);
      }
      Idle idle = idle(last, idleSeconds);
      for (AutoCloseable h : held) {
        h.close();
      }
      printTimesAndCpu(count, roundCount, rounds);
      printRequestsAndHeap(count, idleSeconds, rounds, idle);
    } finally {
      plane.close();
    }
  }

  /**
   * Warm-up rounds, not measured: the plain client, then the operator, each in a namespace dropped
   * afterwards, until the operator's run leaves the JIT (almost) idle.
   */
  private static void warmUp(
      LocalControlPlane plane, KubernetesClient admin, int warmUp, int warmUpRounds)
      throws Exception {
    // Both sides start warm: the classes each loads once and the JIT's work are not held against
    // either side's heap or time. The JIT compiles a method for good (C2) after thousands of
    // calls: the baseline's few paths run thousands of times per round, but many of the
    // operator's run once or twice per WebService, so after one warm-up round of the full size
    // the JIT still compiled 4.5-5.4 s during each measured operator run (1.2 s during the
    // baseline's). The warm-up rounds go on until the operator's run leaves the JIT (almost)
    // idle, at most bench.warmupRounds rounds; each prints the JIT's seconds. Four rounds were
    // not enough (the operator's warm-up runs still compiled 28.3, 6.5, 4.6, 3.3 s, its measured
    // runs 1.0-2.9 s against the baseline's 0.1-1.0 s), hence at most eight. Each warm-up
    // namespace is deleted before the next run: objects left behind would make every later run
    // dearer (the controller manager follows them all), the baseline's proportionally more.
    for (int w = 1; w <= warmUpRounds; w++) {
      step(
          String.format(
              "warm-up %d (not measured): %d Deployments + Services with the plain client",
              w, warmUp));
      Result plainWarm = plainClientRun(plane, "bench-warmup-" + w, warmUp);
      plainWarm.held().close();
      dropNamespace(admin, "bench-warmup-" + w);
      step(String.format("warm-up %d (not measured): %d WebServices with the operator", w, warmUp));
      CpuMeter.JvmTime before = CpuMeter.JvmTime.now();
      long operatorWarm = warmUpOperator(plane, admin, "bench-warmup-operator-" + w, warmUp);
      CpuMeter.JvmTime operatorJvm = CpuMeter.JvmTime.now().minus(before);
      dropNamespace(admin, "bench-warmup-operator-" + w);
      System.out.printf(
          "    warm-up %d: plain %.1f s (%s), operator %.1f s (%s); ratio %.2f, not counted%n",
          w,
          plainWarm.nanos() / 1e9,
          plainWarm.jvm(),
          operatorWarm / 1e9,
          operatorJvm,
          (double) operatorWarm / plainWarm.nanos());
      if (operatorJvm.jit() < WARM_JIT_SECONDS) {
        break;
      }
    }
  }

  /** One measured round: both sides, in turn; adds its figures to {@code rounds}. */
  private static OperatorRun round(
      LocalControlPlane plane,
      KubernetesClient admin,
      int r,
      int roundCount,
      int count,
      List<Round> rounds,
      List<AutoCloseable> held)
      throws Exception {
    // The sides take turns going first (the store grows with every run), and the figures are
    // the medians of the rounds.
    Result plain = null;
    OperatorRun op = null;
    for (int side = 0; side < 2; side++) {
      boolean plainNow = (side == 0) == (r % 2 == 1);
      if (plainNow) {
        step(
            String.format(
                "round %d/%d: plain client: %d Deployments + Services, until all are rolled out",
                r, roundCount, count));
        plain = plainClientRun(plane, "bench-plain-" + r, count);
        held.add(plain.held());
      } else {
        step(
            String.format(
                "round %d/%d: operator: %d WebServices, until all are Ready",
                r, roundCount, count));
        op = operatorRun(plane, admin, "bench-operator-" + r, count);
        held.add(op);
      }
    }
    Round round = new Round(plain.nanos(), plain.heap(), op.nanos, op.heap, plain.cpu(), op.cpu);
    rounds.add(round);
    System.out.printf(
        "    round %d: time plain %.1f s, operator %.1f s (ratio %.2f); heap plain %.1f MB,"
            + " operator %.1f MB (ratio %.2f)%n",
        r,
        plain.nanos() / 1e9,
        op.nanos / 1e9,
        round.timeRatio(),
        plain.heap() / 1e6,
        op.heap / 1e6,
        round.heapRatio());
    System.out.printf(
        "      CPU plain %s%n      CPU operator %s%n      of the JVM's: plain %s, operator %s%n"
            + "      CPU ratio %.2f; the host stole %.0f%% of the machine's CPU time during the"
            + " plain run, %.0f%% during the operator's%n",
        CpuMeter.describe(plain.cpu()),
        CpuMeter.describe(op.cpu),
        plain.jvm(),
        op.jvm,
        round.cpuRatio(),
        plain.steal(),
        op.steal);
    return op;
  }

  /** What the operator did until converged (last round) and while idle after. */
  private record Idle(
      int convergenceWrites,
      long eventWrites,
      int convergenceReconciles,
      List<String> convergenceReads,
      List<String> idleWrites,
      int idleReconciles,
      List<String> idleReads,
      long operatorIdleHeap) {}

  /**
   * Ready comes first; the Deployment's own Available condition follows and is recorded too. The
   * idle period starts once the operator has been quiet for 3 s.
   */
  private static Idle idle(OperatorRun op, int idleSeconds) throws Exception {
    op.writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
    int convergenceWrites = op.writes.count() - op.writesAtStart;
    long eventWrites =
        op.writes.since(op.writesAtStart).stream().filter(w -> w.contains("/events")).count();
    int readsAtIdle = op.writes.readCount();
    int convergenceReconciles = op.reconciles.count();
    List<String> convergenceReads = op.writes.readsSince(op.readsAtStart);
    step("operator idle for " + idleSeconds + " s after convergence");
    int reconcilesBefore = op.reconciles.count();
    List<String> idleWrites = op.writes.writesDuring(Duration.ofSeconds(idleSeconds));
    int idleReconciles = op.reconciles.count() - reconcilesBefore;
    List<String> idleReads = op.writes.readsSince(readsAtIdle);
    long operatorIdleHeap = usedHeapAfterGc() - op.heapBefore;
    return new Idle(
        convergenceWrites,
        eventWrites,
        convergenceReconciles,
        convergenceReads,
        idleWrites,
        idleReconciles,
        idleReads,
        operatorIdleHeap);
  }

  private static void printTimesAndCpu(int count, int roundCount, List<Round> rounds) {
    System.out.printf(
        "%nWebService benchmark: %d objects, Kubernetes %s (local control plane, simulated kubelet,"
            + " %d creating threads on each side), %d rounds; the JVM's collectors: %s%n",
        count,
        LocalControlPlane.VERSION,
        THREADS,
        roundCount,
        ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(GarbageCollectorMXBean::getName)
            .collect(Collectors.joining(", ")));
    System.out.printf(
        "  plain client (Deployment + Service, wait for rollout): %7.1f s (median)%n",
        median(rounds, Round::plainNanos) / 1e9);
    System.out.printf(
        "  operator     (WebService, wait for Ready):             %7.1f s (median)%n",
        median(rounds, Round::operatorNanos) / 1e9);
    System.out.printf(
        "  time ratio operator/plain: %.2f, the median of %s (target <= 1.3)%n",
        median(rounds, Round::timeRatio), listed(rounds, Round::timeRatio));
    System.out.printf(
        "  CPU seconds until converged (control plane and this JVM; the machine is busy"
            + " throughout): plain %.1f, operator %.1f (medians), ratio %.2f, the median of %s%n",
        median(rounds, r -> CpuMeter.total(r.plainCpu())),
        median(rounds, r -> CpuMeter.total(r.operatorCpu())),
        median(rounds, Round::cpuRatio),
        listed(rounds, Round::cpuRatio));
  }

  private static void printRequestsAndHeap(
      int count, int idleSeconds, List<Round> rounds, Idle idle) {
    int convergenceWrites = idle.convergenceWrites();
    long eventWrites = idle.eventWrites();
    int convergenceReconciles = idle.convergenceReconciles();
    List<String> convergenceReads = idle.convergenceReads();
    List<String> idleWrites = idle.idleWrites();
    int idleReconciles = idle.idleReconciles();
    List<String> idleReads = idle.idleReads();
    long operatorIdleHeap = idle.operatorIdleHeap();
    System.out.printf(
        "  operator writes until converged (last round): %d (%.1f per WebService: %.1f to objects"
            + " and status, %.1f Events; the plain client: 2)%n",
        convergenceWrites,
        (double) convergenceWrites / count,
        (double) (convergenceWrites - eventWrites) / count,
        (double) eventWrites / count);
    System.out.printf(
        "  operator reconciles until converged: %d (%.1f per WebService)%n",
        convergenceReconciles, (double) convergenceReconciles / count);
    System.out.printf(
        "  operator reads until converged: %d (%.1f per WebService)%n",
        convergenceReads.size(), (double) convergenceReads.size() / count);
    convergenceReads.stream()
        .map(r -> r.replaceAll("svc-[0-9]+", "svc-N"))
        .collect(Collectors.groupingBy(r -> r, TreeMap::new, Collectors.counting()))
        .forEach((r, n) -> System.out.printf("    %6d  %s%n", n, r));
    System.out.printf(
        "  operator writes during %d s idle: %d (target 0); reconciles: %d%n",
        idleSeconds, idleWrites.size(), idleReconciles);
    idleWrites.stream().limit(10).forEach(w -> System.out.println("    " + w));
    System.out.printf(
        "  idle API requests per minute per WebService: %.3f reads, %.3f writes (watches not"
            + " counted)%n",
        idleReads.size() / (idleSeconds / 60.0) / count,
        idleWrites.size() / (idleSeconds / 60.0) / count);
    System.out.printf(
        "  heap held %d s (or more, until steady) after convergence: operator %.1f MB, plain"
            + " client %.1f MB (medians), ratio %.2f, the median of %s (target <= 1.5)%n",
        SETTLE.toSeconds(),
        median(rounds, Round::operatorHeap) / 1e6,
        median(rounds, Round::plainHeap) / 1e6,
        median(rounds, Round::heapRatio),
        listed(rounds, Round::heapRatio));
    System.out.printf(
        "  heap held after %d s idle (last round): operator %.1f MB (ratio %.2f to that round's"
            + " plain client)%n",
        idleSeconds,
        operatorIdleHeap / 1e6,
        (double) operatorIdleHeap / Math.max(1, rounds.get(rounds.size() - 1).plainHeap()));
  }

  /** A plain run's time, the heap it added, its CPU seconds, and what it still holds open. */
  private record Result(
      long nanos,
      long heap,
      Map<String, Double> cpu,
      CpuMeter.JvmTime jvm,
      double steal,
      AutoCloseable held) {}

  /** One round's figures: each side's time, CPU seconds and the heap it held after converging. */
  private record Round(
      long plainNanos,
      long plainHeap,
      long operatorNanos,
      long operatorHeap,
      Map<String, Double> plainCpu,
      Map<String, Double> operatorCpu) {
    double timeRatio() {
      return (double) operatorNanos / plainNanos;
    }

    double cpuRatio() {
      return CpuMeter.total(operatorCpu) / CpuMeter.total(plainCpu);
    }

    double heapRatio() {
      return (double) operatorHeap / Math.max(1, plainHeap);
    }
  }

  /** An operator that has brought its round's WebServices to Ready, still running. */
  private static final class OperatorRun implements AutoCloseable {
    final WriteCounter writes = new WriteCounter();
    final ReconcileCounter reconciles = new ReconcileCounter();
    KubernetesClient client;
    OperatorRuntime runtime;
    KubernetesClient user;
    SharedIndexInformer<WebService> waiting;
    long heapBefore;
    int writesAtStart;
    int readsAtStart;
    long nanos;
    Map<String, Double> cpu;
    CpuMeter.JvmTime jvm;
    double steal;
    long heap;

    @Override
    public void close() {
      waiting.close();
      user.close();
      runtime.close();
      client.close();
    }
  }

  private static OperatorRun operatorRun(
      LocalControlPlane plane, KubernetesClient admin, String ns, int count) throws Exception {
    OperatorRun run = new OperatorRun();
    run.heapBefore = releasedHeap();
    run.client = plane.adminClient(b -> b.addOrReplaceInterceptor("writes", run.writes));
    namespace(admin, ns);
    run.runtime = operator(run.client, ns, run.reconciles);
    run.writesAtStart = run.writes.count();
    run.readsAtStart = run.writes.readCount();
    run.user = plane.adminClient();
    // The waiting informer reads its events straight into their class, as the baseline's (of a
    // built-in kind) does; the operator's own client registers its kind itself.
    run.user.getKubernetesSerialization().registerKubernetesResource(WebService.class);
    run.waiting = run.user.resources(WebService.class).inNamespace(ns).inform();
    Instant started = Instant.now();
    CpuMeter cpu = CpuMeter.start();
    long start = System.nanoTime();
    createAll(
        count, i -> run.user.resources(WebService.class).inNamespace(ns).resource(ws(i)).create());
    waitFor(count, () -> run.waiting.getStore().list(), WebServiceBenchmark::ready, start);
    run.nanos = System.nanoTime() - start;
    run.cpu = cpu.seconds();
    run.jvm = cpu.jvmTime();
    run.steal = cpu.stealPercent();
    Timeline.print(run.user, ns, started);
    run.heap = settledHeap() - run.heapBefore;
    return run;
  }

  private static double median(List<Round> rounds, ToDoubleFunction<Round> f) {
    double[] v = rounds.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String listed(List<Round> rounds, ToDoubleFunction<Round> f) {
    return rounds.stream()
        .map(r -> String.format("%.2f", f.applyAsDouble(r)))
        .collect(Collectors.joining(", "));
  }

  private static OperatorRuntime operator(
      KubernetesClient client, String ns, ReconcileCounter reconciles) {
    return new OperatorRuntime(
            withReconcileThreads(
                OperatorSettings.local(WebServiceOperator.NAME)
                    .watching(Set.of(ns))
                    .withHttpPort(-1)),
            client,
            reconciles)
        .register(new WebServiceReconciler(new EventRecorder(client, WebServiceOperator.NAME)))
        .start();
  }

  /** The chart's default pool unless {@code -Dbench.reconcileThreads} says otherwise. */
  private static OperatorSettings withReconcileThreads(OperatorSettings s) {
    return new OperatorSettings(
        s.name(),
        s.watchNamespaces(),
        s.leaderElection(),
        s.leaseNamespace(),
        s.httpPort(),
        Integer.getInteger("bench.reconcileThreads", s.reconcileThreads()),
        s.leaseDuration());
  }

  /**
   * Runs the operator on {@code count} WebServices until all are Ready; returns the nanoseconds.
   */
  private static long warmUpOperator(
      LocalControlPlane plane, KubernetesClient admin, String ns, int count) throws Exception {
    namespace(admin, ns);
    try (KubernetesClient client = plane.adminClient();
        OperatorRuntime operator = operator(client, ns, new ReconcileCounter())) {
      SharedIndexInformer<WebService> informer =
          client.resources(WebService.class).inNamespace(ns).inform();
      long start = System.nanoTime();
      createAll(
          count, i -> client.resources(WebService.class).inNamespace(ns).resource(ws(i)).create());
      waitFor(count, () -> informer.getStore().list(), WebServiceBenchmark::ready, start);
      long elapsed = System.nanoTime() - start;
      informer.close();
      return elapsed;
    }
  }

  private static WebService ws(int i) {
    return webService(String.format("svc-%04d", i), "registry.example.com/bench:1.0", 1);
  }

  /** The same Deployment and Service the operator would make, written with plain creates. */
  private static Result plainClientRun(LocalControlPlane plane, String ns, int count)
      throws Exception {
    long heapBefore = releasedHeap();
    KubernetesClient client = plane.adminClient();
    namespace(client, ns);
    SharedIndexInformer<Deployment> informer = client.apps().deployments().inNamespace(ns).inform();
    Instant started = Instant.now();
    CpuMeter cpu = CpuMeter.start();
    long start = System.nanoTime();
    createAll(
        count,
        i -> {
          WebService ws = ws(i);
          ws.getMetadata().setNamespace(ns);
          ws.getMetadata().setGeneration(1L);
          Deployment d = DeploymentDependent.desiredDeployment(ws, Optional.empty());
          client.apps().deployments().inNamespace(ns).resource(d).create();
          client.services().inNamespace(ns).resource(ServiceDependent.desiredService(ws)).create();
        });
    waitFor(count, () -> informer.getStore().list(), WebServiceBenchmark::rolledOut, start);
    long elapsed = System.nanoTime() - start;
    Map<String, Double> used = cpu.seconds();
    CpuMeter.JvmTime jvm = cpu.jvmTime();
    double steal = cpu.stealPercent();
    Timeline.print(client, ns, started);
    return new Result(
        elapsed,
        settledHeap() - heapBefore,
        used,
        jvm,
        steal,
        () -> {
          informer.close();
          client.close();
        });
  }

  private static boolean rolledOut(Deployment d) {
    var s = d.getStatus();
    int desired = d.getSpec().getReplicas();
    return s != null
        && s.getObservedGeneration() != null
        && s.getObservedGeneration() >= d.getMetadata().getGeneration()
        && s.getUpdatedReplicas() != null
        && s.getUpdatedReplicas() == desired
        && s.getReadyReplicas() != null
        && s.getReadyReplicas() == desired
        && s.getAvailableReplicas() != null
        && s.getAvailableReplicas() == desired;
  }

  private static boolean ready(WebService ws) {
    return ws.getStatus() != null
        && ws.getMetadata().getGeneration().equals(ws.getStatus().getObservedGeneration())
        && Conditions.isTrue(ws.getStatus().getConditions(), "Ready");
  }

  /** One of N requests a side sends. */
  interface Creator {
    void create(int i) throws Exception;
  }

  /** Sends {@code count} requests from {@link #THREADS} threads and waits for all. */
  static void createAll(int count, Creator creator) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int n = i;
      futures.add(
          pool.submit(
              () -> {
                creator.create(n);
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
  }

  private static <T extends HasMetadata> void waitFor(
      int count, Supplier<List<T>> items, Predicate<T> done, long start) {
    long[] lastReport = {0};
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              long n = items.get().stream().filter(done).count();
              long now = System.nanoTime();
              if (n >= count || now - lastReport[0] > 5_000_000_000L) {
                System.out.printf("    %d/%d after %.1f s%n", n, count, (now - start) / 1e9);
                lastReport[0] = now;
              }
              return n >= count;
            });
  }

  private static void namespace(KubernetesClient client, String ns) {
    Crds.namespace(client, ns, Map.of(), Map.of());
  }

  /** Deletes a namespace and waits (at most 10 minutes) until it and everything in it are gone. */
  private static void dropNamespace(KubernetesClient client, String ns) {
    long start = System.nanoTime();
    client.namespaces().withName(ns).delete();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> client.namespaces().withName(ns).get() == null);
    System.out.printf(
        "    namespace %s deleted in %.1f s%n", ns, (System.nanoTime() - start) / 1e9);
  }

  /**
   * The heap a side holds once its last watch events are handled: at the very moment of convergence
   * the figure swung between 25 and 44 MB in identical runs, with events still in flight.
   */
  private static long settledHeap() {
    return steadyHeap(SETTLE);
  }

  /** The heap once what a closed side held is gone. */
  private static long releasedHeap() {
    // A closed JDK HTTP client lets go of what its watches held only once its selector thread has
    // noticed, seconds after the close: a baseline taken sooner is cut by that release later on.
    return steadyHeap(Duration.ofSeconds(4));
  }

  /**
   * The heap after collection, no sooner than {@code atLeast} and once {@link #STEADY_READINGS}
   * readings in a row, a second apart, differ by less than 200 kB (at most a minute more).
   */
  private static long steadyHeap(Duration atLeast) {
    long[] last = {usedHeapAfterGc()};
    long[] steadyAt = {last[0]};
    int[] agreeing = {0};
    org.awaitility.Awaitility.await("a steady heap")
        .pollDelay(atLeast)
        .pollInterval(Duration.ofSeconds(1))
        .atMost(atLeast.plusSeconds(60))
        .until(
            () -> {
              long now = usedHeapAfterGc();
              agreeing[0] = Math.abs(last[0] - now) < 200_000 ? agreeing[0] + 1 : 0;
              steadyAt[0] = Math.min(last[0], now);
              last[0] = now;
              return agreeing[0] >= STEADY_READINGS;
            });
    return steadyAt[0];
  }

  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void step(String what) {
    System.out.println("==> " + what);
  }
}
