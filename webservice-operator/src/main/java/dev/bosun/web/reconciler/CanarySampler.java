package dev.bosun.web.reconciler;

import dev.bosun.web.rollout.CanaryJudge.Sample;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Sends a gray release's HTTP checks to canary and stable Pods in the background and keeps the
 * samples of the current step. Bounded: at most {@code requestsPerSecond} requests a second to each
 * revision, exactly {@code samples} requests to each per step, each with a timeout; a new step (or
 * a WebService without a canary) stops the checks of the old one. Nothing runs without an analysis.
 */
final class CanarySampler implements AutoCloseable {

  /** Where a check of a Pod goes, for a port number: its Pod IP unless a test says otherwise. */
  interface PodAddress extends Function<Pod, Optional<String>> {}

  /** The checks of one step: what to request, from whom, how many and how fast. */
  record Target(
      String step,
      List<Pod> canary,
      List<Pod> stable,
      String path,
      int port,
      int samples,
      int requestsPerSecond,
      Duration timeout) {}

  /** The samples of a step so far. */
  record Samples(List<Sample> canary, List<Sample> stable) {}

  private final HttpClient http;
  private final PodAddress address;
  private final ScheduledExecutorService ticks;
  private final Map<String, Run> runs = new ConcurrentHashMap<>();

  /**
   * Keys of deleted WebServices (each key names one incarnation by its UID), most recent last: a
   * reconcile that was under way at the deletion must not start their checks again.
   */
  private final Set<String> retired =
      Collections.synchronizedSet(
          Collections.newSetFromMap(
              new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                  return size() > MAX_RETIRED;
                }
              }));

  private static final int MAX_RETIRED = 10_000;

  CanarySampler(PodAddress address) {
    this.address = address;
    this.ticks =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "canary-analysis");
              t.setDaemon(true);
              return t;
            });
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** A sampler that checks Pods at their IP. */
  static CanarySampler ofPodIps() {
    return new CanarySampler(p -> Optional.ofNullable(p.getStatus()).map(s -> s.getPodIP()));
  }

  /** The samples of {@code target}'s step for {@code key}, starting its checks on first ask. */
  Samples samples(String key, Target target) {
    Run run =
        runs.compute(
            key,
            (k, old) -> {
              if (retired.contains(k)) {
                // Checked inside compute: retire() marks the key before it removes the run, so a
                // run started here just before is removed, and none starts after.
                return null;
              }
              if (old != null && old.target.step().equals(target.step())) {
                return old;
              }
              if (old != null) {
                old.stop();
              }
              return start(target);
            });
    return run == null
        ? new Samples(List.of(), List.of())
        : new Samples(List.copyOf(run.canary), List.copyOf(run.stable));
  }

  /** Stops the checks of a deleted WebService's {@code key} for good. */
  void retire(String key) {
    retired.add(key);
    forget(key);
  }

  /** Stops and forgets the checks of {@code key} (no canary, or no analysis, any more). */
  void forget(String key) {
    Run run = runs.remove(key);
    if (run != null) {
      run.stop();
    }
  }

  /** Whether checks of {@code key} are kept. */
  boolean tracks(String key) {
    return runs.containsKey(key);
  }

  private Run start(Target target) {
    Run run = new Run(target);
    long period = Math.max(1, 1000L / target.requestsPerSecond());
    run.future = ticks.scheduleAtFixedRate(run::tick, 0, period, TimeUnit.MILLISECONDS);
    return run;
  }

  /** One step's checks: one request to each revision a tick, round robin over its Pods. */
  private final class Run {
    final Target target;
    final List<Sample> canary = Collections.synchronizedList(new ArrayList<>());
    final List<Sample> stable = Collections.synchronizedList(new ArrayList<>());
    int sent;
    ScheduledFuture<?> future;

    Run(Target target) {
      this.target = target;
    }

    void tick() {
      if (sent >= target.samples()) {
        stop();
        return;
      }
      send(target.canary(), canary);
      send(target.stable(), stable);
      sent++;
    }

    private void send(List<Pod> pods, List<Sample> into) {
      Pod pod = pods.get(sent % pods.size());
      Optional<String> host = address.apply(pod);
      if (host.isEmpty()) {
        into.add(new Sample(0, Duration.ZERO));
        return;
      }
      URI uri = URI.create("http://" + host.get() + ":" + target.port() + target.path());
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(target.timeout()).GET().build();
      long started = System.nanoTime();
      http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
          .whenComplete(
              (response, failure) ->
                  into.add(
                      new Sample(
                          failure == null ? response.statusCode() : 0,
                          Duration.ofNanos(System.nanoTime() - started))));
    }

    void stop() {
      if (future != null) {
        future.cancel(false);
      }
    }
  }

  @Override
  public void close() {
    ticks.shutdownNow();
  }
}
