package dev.bosun.e2e;

import dev.bosun.common.testing.PodExec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A shell loop in a client Pod sending GETs through a Service's name and counting the answers by
 * the Pod that gave them: the answering Pod writes its name as the last line of the body, so a
 * request is attributed to a canary Pod when that name starts with {@code <service>-canary-}. Raw
 * HTTP through busybox {@code nc}, because busybox {@code wget} prints no body for an error status
 * and the attribution of a failed request is the point. A file /tmp/stop in the Pod ends the loop.
 */
final class CountedRequests {

  /**
   * What the loop counted. {@code failed} are answers other than 200 from a canary Pod; {@code
   * failedElsewhere} are all other failures: another status from a stable Pod, an answer without a
   * Pod name, or no answer within 5 s.
   */
  record Counts(int requests, int ok, int toCanary, int failedAtCanary, int failedElsewhere) {

    int failed() {
      return failedAtCanary + failedElsewhere;
    }
  }

  private static final Pattern COUNTS =
      Pattern.compile(
          "requests=(\\d+) ok=(\\d+) canary=(\\d+) canaryFailed=(\\d+) otherFailed=(\\d+)");

  private final KubernetesClient admin;
  private final String namespace;
  private final String pod;

  CountedRequests(KubernetesClient admin, String namespace, String pod) {
    this.admin = admin;
    this.namespace = namespace;
    this.pod = pod;
  }

  /**
   * Starts sending {@code GET path} to {@code service} (port 80) every 0.2 s; bounded: {@code max}
   * requests or {@code limit}, whichever comes first, or until {@link #stop}. Each failure
   * elsewhere prints a line "failed: code=... pod=..." before the counts.
   */
  CompletableFuture<PodExec.Result> start(String service, String path, int max, Duration limit) {
    String script = script(service, path, max, limit);
    // Removed before the loop starts, not by it: a stop asked for while the exec is still on its
    // way would otherwise be undone and the loop run to its bound.
    PodExec.sh(admin, namespace, pod, Duration.ofSeconds(10), "rm -f /tmp/stop");
    return CompletableFuture.supplyAsync(
        () -> PodExec.sh(admin, namespace, pod, limit.plusMinutes(1), script));
  }

  /** The loop of {@link #start}, for {@code sh -c}. */
  static String script(String service, String path, int max, Duration limit) {
    return "n=0; ok=0; canary=0; cfail=0; ofail=0;"
        + " end=$(( $(date +%s) + "
        + limit.toSeconds()
        + " ));"
        + " while [ $n -lt "
        + max
        + " ] && [ $(date +%s) -lt $end ] && [ ! -f /tmp/stop ]; do"
        + " r=$(printf 'GET "
        + path
        + " HTTP/1.0\\r\\n\\r\\n' | timeout 5 nc "
        + service
        + " 80 2>/dev/null);"
        + " code=$(printf '%s\\n' \"$r\" | head -n 1 | cut -d ' ' -f 2);"
        + " from=$(printf '%s\\n' \"$r\" | tail -n 1);"
        + " n=$((n+1)); c=0;"
        + " case \"$from\" in "
        + service
        + "-canary-*) canary=$((canary+1)); c=1;; esac;"
        + " if [ \"$code\" = 200 ]; then ok=$((ok+1));"
        + " elif [ $c = 1 ]; then cfail=$((cfail+1));"
        + " else ofail=$((ofail+1)); echo \"failed: code=${code:-none} pod=${from:-none}\"; fi;"
        + " sleep 0.2; done;"
        + " echo requests=$n ok=$ok canary=$canary canaryFailed=$cfail otherFailed=$ofail";
  }

  /** Asks the running loop to end after its current request. */
  void stop() {
    PodExec.sh(admin, namespace, pod, Duration.ofSeconds(10), "touch /tmp/stop");
  }

  /** The counts a finished loop printed. */
  static Counts counts(String out) {
    Matcher m = COUNTS.matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("the request loop printed no counts: " + out);
    }
    return new Counts(
        Integer.parseInt(m.group(1)),
        Integer.parseInt(m.group(2)),
        Integer.parseInt(m.group(3)),
        Integer.parseInt(m.group(4)),
        Integer.parseInt(m.group(5)));
  }
}
