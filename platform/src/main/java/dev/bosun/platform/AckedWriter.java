package dev.bosun.platform;

import dev.bosun.common.testing.PodExec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A shell writer in a client Pod inserting numbered rows into {@link #TABLE} through one host name
 * (the primary Service), a new mariadb client per row as an application reconnecting would. It
 * prints "ack ID STARTED ACKED" (epoch milliseconds) for every acknowledged row and "fail ID" for
 * every refused one; a file /tmp/stop in the Pod ends it.
 */
public final class AckedWriter {

  public static final String TABLE = "app.t";

  /** Creates {@link #TABLE}, once per cluster. */
  public static final String SCHEMA =
      "CREATE DATABASE IF NOT EXISTS app; CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)";

  /** One acknowledged row: when its attempt started and when the server acknowledged it. */
  public record Ack(int id, long startedMillis, long ackedMillis) {}

  private static final Pattern ACK = Pattern.compile("(?m)^ack (\\d+) (\\d+) (\\d+)$");

  private final KubernetesClient admin;
  private final String namespace;
  private final String pod;
  private final String host;

  AckedWriter(KubernetesClient admin, String namespace, String pod, String host) {
    this.admin = admin;
    this.namespace = namespace;
    this.pod = pod;
    this.host = host;
  }

  /**
   * Starts writing ids from {@code first}; bounded: {@code attempts} inserts or {@code limit}, and
   * stops early when /tmp/stop appears. The result holds what the writer printed.
   */
  public CompletableFuture<PodExec.Result> start(int first, int attempts, Duration limit) {
    // /bin/date is coreutils: the workloads image's busybox date (first on PATH) has no %N.
    // timeout: the client's --connect-timeout does not cover a statement already sent, and one
    // sent to a server that then freezes would hold the writer until the server resumes.
    String script =
        "i="
            + first
            + "; last=$((i + "
            + attempts
            + ")); end=$(( $(date +%s) + "
            + limit.toSeconds()
            + " ));"
            + " while [ $i -lt $last ] && [ $(date +%s) -lt $end ] && [ ! -f /tmp/stop ]; do"
            + " s=$(/bin/date +%s%3N);"
            + " if timeout 5 mariadb -h "
            + host
            + " -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=2"
            + " -e \"INSERT INTO app.t VALUES ($i)\" >/dev/null 2>&1;"
            + " then echo ack $i $s $(/bin/date +%s%3N);"
            + " else echo fail $i; sleep 0.2; fi; i=$((i+1)); done; echo done";
    return CompletableFuture.supplyAsync(
        () -> PodExec.sh(admin, namespace, pod, limit.plusMinutes(1), script));
  }

  /** Asks a running writer to stop after its current insert. */
  public void stop() {
    PodExec.sh(admin, namespace, pod, Duration.ofSeconds(10), "touch /tmp/stop");
  }

  /** Lets the next writer run (a stop file left by the last one would end it at once). */
  public void allow() {
    PodExec.sh(admin, namespace, pod, Duration.ofSeconds(10), "rm -f /tmp/stop");
  }

  /**
   * When the writer's first write after a fault was acknowledged: the first acknowledged row issued
   * once the fault was in place ({@code struckMillis}) and after the first refused attempt since
   * the fault ({@code faultMillis}), if there was one. A row the old server still took while the
   * fault was on its way (a signal being sent, a deleted Pod's server shutting down) is no
   * recovery.
   */
  public static OptionalLong firstAckAfter(String out, long faultMillis, long struckMillis) {
    List<Ack> acks = acks(out);
    int lastBefore =
        acks.stream()
            .filter(a -> a.startedMillis() < faultMillis)
            .mapToInt(Ack::id)
            .max()
            .orElse(Integer.MIN_VALUE);
    int firstRefused =
        RealNodePods.numbered(out, "fail").stream()
            .filter(id -> id > lastBefore)
            .min(Integer::compare)
            .orElse(lastBefore);
    return acks.stream()
        .filter(a -> a.startedMillis() >= struckMillis && a.id() > firstRefused)
        .mapToLong(Ack::ackedMillis)
        .findFirst();
  }

  /** The acknowledged rows in a writer's output, in the order they were written. */
  public static List<Ack> acks(String out) {
    List<Ack> acks = new ArrayList<>();
    Matcher m = ACK.matcher(out);
    while (m.find()) {
      acks.add(
          new Ack(
              Integer.parseInt(m.group(1)),
              Long.parseLong(m.group(2)),
              Long.parseLong(m.group(3))));
    }
    return acks;
  }
}
