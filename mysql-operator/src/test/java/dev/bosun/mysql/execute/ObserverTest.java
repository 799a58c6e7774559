package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the observer keeps about a member that does not answer. */
class ObserverTest {

  private final Observer observer =
      new Observer(
          new MariaDbDialect(),
          new Credentials("op", "op-pw", "repl", "repl-pw"),
          Duration.ofSeconds(2));

  @Test
  void aMemberThatRefusesIsUnreachableWithTheAddressAndWhatCameBack() throws IOException {
    Address closed = closedLoopbackPort();

    InstanceState state = observer.observe("db-1", 1, closed);

    assertThat(state.reachable()).isFalse();
    assertThat(observer.unreachableReasons())
        .containsOnlyKeys("db-1")
        .extractingByKey("db-1")
        .asString()
        .contains(closed.host() + ":" + closed.port())
        .contains("refused the connection");
  }

  @Test
  void aMemberThatWasNeverAskedHasNoReason() {
    assertThat(observer.unreachableReasons()).isEmpty();
  }

  /** A loopback port nothing listens on: bound, then released. */
  private static Address closedLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new Address("127.0.0.1", s.getLocalPort());
    }
  }
}
