package dev.bosun.e2e;

import dev.bosun.common.testing.PodExec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples, from a client Pod, which members of a MySQLCluster on the real node could acknowledge a
 * write: read_only off and, where semi-sync is on, another member's receiver connected to it (the
 * lab's rule: an old primary whose replicas left acknowledges nothing). A sample with two such
 * members counts only if a second reading right after shows two as well, since one reading visits
 * the members one after another and can straddle a fence and the promotion that follows it.
 */
final class PodWritableSampler implements AutoCloseable {

  /** One member's reading: null fields when it did not answer. */
  record Reading(String member, Boolean readOnly, Boolean semiSync, String receivingFrom) {}

  private static final Pattern HEAD = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)");
  private static final Pattern MASTER = Pattern.compile("Master_Host:\\s*(\\S+)");
  private static final Pattern IO = Pattern.compile("Slave_IO_Running:\\s*(\\S+)");

  private final KubernetesClient admin;
  private final String namespace;
  private final String client;
  private final String cluster;
  private final List<String> members;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong unsafe = new AtomicLong();
  private final List<String> details = new ArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "pod-writable-sampler");
            t.setDaemon(true);
            return t;
          });

  /**
   * Samples {@code members} of {@code cluster} from {@code client} every second, for {@code bound}
   * at most.
   */
  PodWritableSampler(
      KubernetesClient admin,
      String namespace,
      String client,
      String cluster,
      List<String> members,
      Duration bound) {
    this.admin = admin;
    this.namespace = namespace;
    this.client = client;
    this.cluster = cluster;
    this.members = List.copyOf(members);
    timer.scheduleWithFixedDelay(this::sample, 0, 1, TimeUnit.SECONDS);
    timer.schedule(timer::shutdown, bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void sample() {
    try {
      List<String> first = writable(read());
      samples.incrementAndGet();
      if (first.size() < 2) {
        return;
      }
      List<String> second = writable(read());
      if (second.size() >= 2) {
        unsafe.incrementAndGet();
        synchronized (details) {
          if (details.size() < 10) {
            details.add(System.currentTimeMillis() + " ms: " + first + ", then " + second);
          }
        }
      }
    } catch (RuntimeException e) {
      // An exec that failed (the client Pod busy, the API slow) is a sample not taken; one cut
      // short by close() is the end of sampling.
      if (!Thread.currentThread().isInterrupted()) {
        System.err.println("[chaos-node] writable sample not taken: " + e.getMessage());
      }
    }
  }

  /** One reading of every member, in one exec. */
  private Map<String, Reading> read() {
    StringBuilder script = new StringBuilder();
    for (String m : members) {
      script
          .append("echo \"@@ ")
          .append(m)
          .append("\"; timeout 3 mariadb -h ")
          .append(m)
          .append('.')
          .append(cluster)
          .append("-headless -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=1 -N -B -e")
          .append(" 'SELECT @@GLOBAL.read_only, @@GLOBAL.rpl_semi_sync_master_enabled;")
          .append(" SHOW SLAVE STATUS\\G' 2>/dev/null; ");
    }
    String out =
        PodExec.sh(admin, namespace, client, Duration.ofSeconds(20), script.toString()).stdout();
    return parse(out, members);
  }

  /** The readings in the sampler script's output. */
  static Map<String, Reading> parse(String out, List<String> members) {
    Map<String, Reading> readings = new LinkedHashMap<>();
    String[] parts = out.split("(?m)^@@ ");
    for (String part : parts) {
      int eol = part.indexOf('\n');
      String member = (eol < 0 ? part : part.substring(0, eol)).strip();
      if (!members.contains(member)) {
        continue;
      }
      String body = eol < 0 ? "" : part.substring(eol + 1);
      Matcher head = HEAD.matcher(body);
      if (!head.find()) {
        readings.put(member, new Reading(member, null, null, null));
        continue;
      }
      Matcher master = MASTER.matcher(body);
      Matcher io = IO.matcher(body);
      String from =
          master.find() && io.find() && "Yes".equals(io.group(1)) ? master.group(1) : null;
      readings.put(
          member,
          new Reading(member, !"0".equals(head.group(1)), !"0".equals(head.group(2)), from));
    }
    return readings;
  }

  /** The members that could acknowledge a write in one reading. */
  static List<String> writable(Map<String, Reading> readings) {
    List<String> writable = new ArrayList<>();
    for (Reading r : readings.values()) {
      if (r.readOnly() == null || r.readOnly()) {
        continue;
      }
      boolean received =
          readings.values().stream()
              .anyMatch(
                  o ->
                      !o.member().equals(r.member())
                          && o.receivingFrom() != null
                          && o.receivingFrom().startsWith(r.member() + "."));
      if (!r.semiSync() || received) {
        writable.add(r.member());
      }
    }
    return writable;
  }

  long samples() {
    return samples.get();
  }

  long unsafeSamples() {
    return unsafe.get();
  }

  List<String> unsafeDetails() {
    synchronized (details) {
      return List.copyOf(details);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
