package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local server processes: started in their own session, signalled directly, never leaked. */
class LocalProcessIT {

  @TempDir Path dir;

  private LocalProcess etcd(String host, int client, int peer) {
    return LocalProcess.start(
        "etcd-" + client,
        List.of(
            "/usr/bin/etcd",
            "--name=m",
            "--data-dir=" + dir.resolve("data-" + client),
            "--listen-client-urls=http://" + host + ":" + client,
            "--advertise-client-urls=http://" + host + ":" + client,
            "--listen-peer-urls=http://" + host + ":" + peer,
            "--initial-advertise-peer-urls=http://" + host + ":" + peer,
            "--initial-cluster=m=http://" + host + ":" + peer),
        dir.resolve("etcd-" + client + ".log"));
  }

  @Test
  void aKilledServerIsGoneAndItsPortClosed() {
    String host = "127.0.0.1";
    int port = LocalProcess.freePort(host);
    LocalProcess server = etcd(host, port, LocalProcess.freePort(host));
    server.awaitPort(host, port, Duration.ofSeconds(30));
    assertThat(server.isAlive()).isTrue();
    assertThat(ProcessHandle.of(server.pid()).orElseThrow().info().command())
        .hasValueSatisfying(c -> assertThat(c).endsWith("etcd"));

    server.kill();

    assertThat(server.isAlive()).isFalse();
    assertThat(accepts(host, port)).isFalse();
  }

  @Test
  void aPausedServerStaysAliveAndResumes() {
    String host = "127.0.0.2";
    int port = LocalProcess.freePort(host);
    try (LocalProcess server = etcd(host, port, LocalProcess.freePort(host))) {
      server.awaitPort(host, port, Duration.ofSeconds(30));
      server.pause();
      assertThat(server.isAlive()).isTrue();
      assertThat(ProcessHandle.of(server.pid()).orElseThrow().info().command()).isPresent();
      server.resume();
      server.awaitPort(host, port, Duration.ofSeconds(10));
    }
  }

  @Test
  void waitingForAServerThatDiedFailsFastWithItsLog() {
    LocalProcess broken =
        LocalProcess.start(
            "broken-etcd", List.of("/usr/bin/etcd", "--no-such-flag"), dir.resolve("broken.log"));
    assertThatThrownBy(() -> broken.awaitPort("127.0.0.1", 1, Duration.ofSeconds(30)))
        .hasMessageContaining("broken-etcd exited")
        .hasMessageContaining("no-such-flag");
  }

  @Test
  void portsAreOnlyHandedOutOnLoopback() {
    assertThatThrownBy(() -> LocalProcess.freePort("10.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(LocalProcess.freePort("127.0.0.3")).isBetween(20000, 32000);
  }

  private static boolean accepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
