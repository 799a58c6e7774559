package dev.bosun.etcd.bench;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.ProcessKubelet;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Time to scale 3 -> 7 -> 3 on real etcd through the operator (Pods on the local control plane, run
 * as etcd processes by the process kubelet) against the same membership changes made directly with
 * jetcd (learner add, start, promote; move leader, remove, stop) in the same run. Bounded: each
 * phase gives up after 5 minutes. Run with {@code ./bosun bench etcd}.
 */
public final class EtcdScaleBenchmark {

  static final int FROM = Integer.getInteger("bench.from", 3);
  static final int TO = Integer.getInteger("bench.to", 7);
  static final Duration LIMIT = Duration.ofMinutes(5);

  static final Duration IDLE = Duration.ofSeconds(Integer.getInteger("bench.idleSeconds", 60));

  /** The operator's scaling time and what the converged cluster costs the API server after. */
  record OperatorRun(double seconds, double idleReadsPerMinute, double idleWritesPerMinute) {}

  public static void main(String[] args) throws Exception {
    double direct = directWithJetcd();
    OperatorRun operator = throughTheOperator();
    System.out.printf(
        "%nscale %d -> %d -> %d on etcd 3.4.23%n  direct jetcd : %6.1f s%n  operator     : %6.1f s%n"
            + "  ratio        : %6.2f%n",
        FROM, TO, FROM, direct, operator.seconds(), operator.seconds() / direct);
    System.out.printf(
        "  idle operator: %.1f API reads/min and %.1f API writes/min per converged %d-member"
            + " cluster over %d s (watches not counted)%n",
        operator.idleReadsPerMinute(), operator.idleWritesPerMinute(), FROM, IDLE.toSeconds());
    System.exit(0);
  }

  static OperatorRun throughTheOperator() throws Exception {
    ControlPlaneExtension.kubelet();
    try (RunningOperator operator = EtcdUnderTest.operator().start()) {
      String ns = Crds.namespace(operator.testClient, "etcd-bench", Map.of(), Map.of());
      try (ProcessKubelet kubelet =
          new ProcessKubelet(operator.testClient, ns, Files.createTempDirectory("bench-kubelet"))
              .start()) {
        EtcdClusters.create(operator.testClient, ns, "bench", FROM, "3.4.23");
        EtcdClusters.await(
            operator.testClient, ns, "bench", LIMIT, "Ready", EtcdClusters.readyWith(FROM));
        long start = System.nanoTime();
        EtcdClusters.edit(operator.testClient, ns, "bench", s -> s.setSize(TO));
        EtcdClusters.await(
            operator.testClient, ns, "bench", LIMIT, "up", EtcdClusters.readyWith(TO));
        EtcdClusters.edit(operator.testClient, ns, "bench", s -> s.setSize(FROM));
        EtcdClusters.await(
            operator.testClient, ns, "bench", LIMIT, "down", EtcdClusters.readyWith(FROM));
        double seconds = (System.nanoTime() - start) / 1e9;
        operator.writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
        int reads = operator.writes.readCount();
        int writes = operator.writes.writesDuring(IDLE).size();
        double minutes = IDLE.toMillis() / 60_000.0;
        return new OperatorRun(
            seconds, operator.writes.readsSince(reads).size() / minutes, writes / minutes);
      } finally {
        operator.testClient.namespaces().withName(ns).delete();
      }
    }
  }

  /**
   * The same changes by hand: the lower bound etcd itself sets (its "unhealthy cluster" window).
   */
  static double directWithJetcd() throws Exception {
    Path dir = Files.createTempDirectory("bench-direct");
    Map<Integer, LocalProcess> members = new LinkedHashMap<>();
    String initial =
        IntStream.range(0, FROM)
            .mapToObj(i -> "m" + i + "=" + peer(i))
            .collect(Collectors.joining(","));
    try {
      for (int i = 0; i < FROM; i++) {
        members.put(i, start(dir, i, initial, "new"));
      }
      try (Client client =
          Client.builder().endpoints(client(0)).keepaliveWithoutCalls(false).build()) {
        awaitVoters(client, FROM);
        long start = System.nanoTime();
        for (int i = FROM; i < TO; i++) {
          URI peerUrl = URI.create(peer(i));
          Member added =
              retry(
                      () ->
                          client
                              .getClusterClient()
                              .addMember(List.of(peerUrl), true)
                              .get(5, TimeUnit.SECONDS))
                  .getMember();
          List<String> cluster = new ArrayList<>();
          for (Member m :
              client.getClusterClient().listMember().get(5, TimeUnit.SECONDS).getMembers()) {
            String name = m.getId() == added.getId() ? "m" + i : m.getName();
            cluster.add(name + "=" + m.getPeerURIs().get(0));
          }
          members.put(i, start(dir, i, String.join(",", cluster), "existing"));
          long id = added.getId();
          retry(() -> client.getClusterClient().promoteMember(id).get(5, TimeUnit.SECONDS));
        }
        for (int i = TO - 1; i >= FROM; i--) {
          long id = idOf(client, "m" + i);
          retry(() -> client.getClusterClient().removeMember(id).get(5, TimeUnit.SECONDS));
          members.remove(i).stop();
        }
        return (System.nanoTime() - start) / 1e9;
      }
    } finally {
      members.values().forEach(LocalProcess::kill);
    }
  }

  interface Call<T> {
    T call() throws Exception;
  }

  /** Retries what etcd refuses for a while (unhealthy cluster, learner not in sync). */
  static <T> T retry(Call<T> call) throws Exception {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (true) {
      try {
        return call.call();
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        // A condition poll, like the operator's requeue: etcd tells us when it is ready.
        org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(100)).until(() -> true);
      }
    }
  }

  static long idOf(Client client, String name) throws Exception {
    return client.getClusterClient().listMember().get(5, TimeUnit.SECONDS).getMembers().stream()
        .filter(m -> m.getName().equals(name))
        .findFirst()
        .orElseThrow()
        .getId();
  }

  static void awaitVoters(Client client, int n) {
    org.awaitility.Awaitility.await("direct cluster up")
        .atMost(LIMIT)
        .ignoreExceptions()
        .until(
            () ->
                client
                            .getKVClient()
                            .get(io.etcd.jetcd.ByteSequence.from(new byte[] {0}))
                            .get(2, TimeUnit.SECONDS)
                        != null
                    && client
                            .getClusterClient()
                            .listMember()
                            .get(2, TimeUnit.SECONDS)
                            .getMembers()
                            .size()
                        == n);
  }

  static String host(int i) {
    return "127.0.250." + (i + 1);
  }

  static String peer(int i) {
    return "http://" + host(i) + ":2380";
  }

  static URI client(int i) {
    return URI.create("http://" + host(i) + ":2379");
  }

  static LocalProcess start(Path dir, int i, String initial, String state) {
    return LocalProcess.start(
        "bench-m" + i,
        List.of(
            "/usr/bin/etcd",
            "--name=m" + i,
            "--data-dir=" + dir.resolve("m" + i),
            "--listen-peer-urls=" + peer(i),
            "--listen-client-urls=" + client(i),
            "--advertise-client-urls=" + client(i),
            "--initial-advertise-peer-urls=" + peer(i),
            "--initial-cluster=" + initial,
            "--initial-cluster-state=" + state),
        dir.resolve("m" + i + ".log"));
  }
}
