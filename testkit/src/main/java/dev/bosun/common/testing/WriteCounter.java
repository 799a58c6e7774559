package dev.bosun.common.testing;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the mutating requests (POST, PUT, PATCH, DELETE) a client sends, and apart from them the
 * reads that are not watches, to prove that a converged operator is idle: no writes, and no reads
 * beyond its informers' watches. Install it with {@code builder.addOrReplaceInterceptor("writes",
 * counter)}.
 */
public final class WriteCounter implements Interceptor {

  private static final Pattern NAMESPACED = Pattern.compile("/namespaces/([^/?]+)/");

  private final List<String> writes = new CopyOnWriteArrayList<>();
  private final List<String> reads = new CopyOnWriteArrayList<>();
  private final boolean countLeases;

  /** Counts every write. */
  public WriteCounter() {
    this(true);
  }

  private WriteCounter(boolean countLeases) {
    this.countLeases = countLeases;
  }

  /**
   * Counts every write but the renewals of a leader-election Lease, which a leader makes every few
   * seconds whatever its resources do.
   */
  public static WriteCounter excludingLeaderElection() {
    return new WriteCounter(false);
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String method = request.method();
    if (!countLeases && request.uri().getPath().startsWith("/apis/coordination.k8s.io/")) {
      return;
    }
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      writes.add(method + " " + request.uri().getPath());
    } else if (!isWatch(request)) {
      reads.add(method + " " + request.uri().getPath());
    }
  }

  private static boolean isWatch(HttpRequest request) {
    String query = request.uri().getRawQuery();
    return query != null && (query.startsWith("watch=true") || query.contains("&watch=true"));
  }

  /** How many reads (GETs that are not watches) so far. */
  public int readCount() {
    return reads.size();
  }

  /** The reads since {@code from}, as "GET /path" lines (for a failure message). */
  public List<String> readsSince(int from) {
    return List.copyOf(reads.subList(from, reads.size()));
  }

  /** How many writes so far. */
  public int count() {
    return writes.size();
  }

  /**
   * Waits until no write has been made for {@code quiet} (at most {@code max}): the work a
   * convergence set off has landed, so a following idle period measures idleness only.
   */
  public void awaitQuiet(Duration quiet, Duration max) {
    long[] last = {count(), System.nanoTime()};
    await()
        .atMost(max.plus(quiet))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              if (count() != last[0]) {
                last[0] = count();
                last[1] = System.nanoTime();
              }
              return System.nanoTime() - last[1] >= quiet.toNanos();
            });
  }

  /** The writes made while {@code period} passes. */
  public List<String> writesDuring(Duration period) {
    int from = count();
    await().pollDelay(period).atMost(period.plusSeconds(5)).until(() -> true);
    return since(from);
  }

  /** The writes since {@code from}, as "METHOD /path" lines (for a failure message). */
  public List<String> since(int from) {
    return List.copyOf(writes.subList(from, writes.size()));
  }

  /**
   * The writes made while {@code period} passes, but for those in namespaces other than {@code
   * namespace}: an earlier test's namespace being torn down wakes the owners of what it held, whose
   * attempts to put children back (refused in a terminating namespace) are no part of this test's
   * idle period. Cluster-scoped requests still count.
   */
  public List<String> writesDuring(Duration period, String namespace) {
    return writesDuring(period).stream().filter(w -> !inOtherNamespace(w, namespace)).toList();
  }

  /** The reads since {@code from}, but for those in namespaces other than {@code namespace}. */
  public List<String> readsSince(int from, String namespace) {
    return readsSince(from).stream().filter(r -> !inOtherNamespace(r, namespace)).toList();
  }

  private static boolean inOtherNamespace(String request, String namespace) {
    Matcher m = NAMESPACED.matcher(request);
    return m.find() && !m.group(1).equals(namespace);
  }
}
