package dev.bosun.etcd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

class EtcdMembershipTest {

  /** Accepts connections and never answers: a member whose process is stopped (SIGSTOP). */
  static final class SilentMember implements AutoCloseable {
    final ServerSocket server;
    final List<Socket> accepted = new CopyOnWriteArrayList<>();

    SilentMember() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(server.accept());
                  }
                } catch (IOException closed) {
                  // done
                }
              },
              "silent-member");
      t.setDaemon(true);
      t.start();
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  /** gRPC's warnings about channels that were garbage collected without being shut down. */
  static final class OrphanedChannels extends Handler implements AutoCloseable {
    // gRPC logs through java.util.logging, which no test appender sees.
    final Logger logger = Logger.getLogger("io.grpc.internal.ManagedChannelOrphanWrapper");
    final List<String> warnings = new CopyOnWriteArrayList<>();

    OrphanedChannels() {
      logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
      warnings.add(r.getMessage() + " " + java.util.Arrays.toString(r.getParameters()));
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
    }

    /** Collects garbage and lets gRPC look for orphans (it does when a new channel is built). */
    List<String> after(long millis) {
      try {
        await()
            .atMost(Duration.ofMillis(millis))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> {
                  System.gc();
                  ManagedChannelBuilder.forTarget("127.0.0.1:1")
                      .usePlaintext()
                      .build()
                      .shutdownNow();
                  return !warnings.isEmpty();
                });
      } catch (ConditionTimeoutException none) {
        // No orphan within the time: what a test of the fixed code expects.
      }
      return List.copyOf(warnings);
    }
  }

  @Test
  void statusCallsToAMemberThatDoesNotAnswerLeaveNoChannelOpen() throws Exception {
    try (OrphanedChannels orphans = new OrphanedChannels();
        SilentMember silent = new SilentMember()) {
      try (EtcdClients clients = new EtcdClients()) {
        EtcdMembership etcd = new EtcdMembership(clients);
        for (int i = 0; i < 2; i++) {
          assertThat(etcd.status(List.of(silent.endpoint()))).isEmpty();
        }
        // The member leaves while its calls still hang: its client is closed.
        clients.retain(Set.of());
      }

      assertThat(orphans.after(12_000)).as("channels never shut down").isEmpty();
    }
  }
}
