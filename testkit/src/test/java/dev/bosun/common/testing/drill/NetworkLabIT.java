package dev.bosun.common.testing.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.LocalProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The partition-drill harness on real network namespaces and real iptables rules. */
class NetworkLabIT {

  private static final int PORT = 7000;
  private static final int CONNECT_MILLIS = 1500;
  private static final Path LOGS = Path.of("target", "network-lab-it");

  /**
   * A TCP server that greets each connection with the peer's address and then echoes, and a UDP
   * server on the same port that logs each datagram ({@code udp <peer> <text>}) and echoes it.
   */
  private static final String ECHO =
      """
      import socket, sys, threading
      addr, port = sys.argv[1], int(sys.argv[2])
      def serve(c, a):
          with c:
              c.sendall((a[0] + "\\n").encode())
              while True:
                  data = c.recv(4096)
                  if not data:
                      return
                  c.sendall(data)
      def udp(u):
          while True:
              data, a = u.recvfrom(4096)
              print("udp", a[0], data.decode(), flush=True)
              u.sendto(data, a)
      t = socket.socket()
      t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
      t.bind((addr, port))
      t.listen(16)
      u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
      u.bind((addr, port))
      threading.Thread(target=udp, args=(u,), daemon=True).start()
      print("listening", flush=True)
      while True:
          c, a = t.accept()
          threading.Thread(target=serve, args=(c, a), daemon=True).start()
      """;

  private static NetworkLab lab;
  private static TestHost m0;
  private static TestHost m1;
  private static ClientIdentity operator;
  private static ClientIdentity writer;
  private static final List<LocalProcess> servers = new ArrayList<>();

  @BeforeAll
  static void startLab() {
    lab = NetworkLab.create("network-lab-it");
    m0 = lab.host("m0");
    m1 = lab.host("m1");
    operator = lab.client("operator");
    writer = lab.client("writer");
    servers.add(echoServer(m0));
    servers.add(echoServer(m1));
  }

  @AfterEach
  void healAll() {
    lab.healAll();
  }

  @AfterAll
  static void closeLab() {
    servers.forEach(LocalProcess::stop);
    lab.close();
  }

  @Test
  void hostsAndIdentitiesGetAddressesOfTheLabsSubnet() {
    String subnet = "10.252." + lab.index() + ".";
    assertThat(List.of(m0.address(), m1.address(), operator.address(), writer.address()))
        .allMatch(a -> a.startsWith(subnet))
        .doesNotHaveDuplicates();
    assertThat(m0.wrap(List.of("true")))
        .containsExactly("ip", "netns", "exec", m0.namespace(), "true");
    assertThat(Shell.run("ip", "-o", "link", "show"))
        .containsPattern(": bl" + lab.index() + "h1r@")
        .containsPattern(": bl" + lab.index() + "h2r@");
  }

  @Test
  void forwardingIsOnForTheLabsVethsOnly() throws IOException {
    for (int i = 1; i <= 2; i++) {
      Path link = Path.of("/proc/sys/net/ipv4/conf", "bl" + lab.index() + "h" + i + "r");
      assertThat(Files.readString(link.resolve("forwarding")).strip()).isEqualTo("1");
    }
    assertThat(Files.exists(LabDirectory.DIR.resolve("ip_forward.orig"))).isFalse();
  }

  @Test
  void anIdentityCutFromAHostTimesOutWhileOtherPathsStillWork() throws IOException {
    assertThat(hello(operator, m0)).isEqualTo(operator.address());
    assertThat(hello(operator, m1)).isEqualTo(operator.address());
    assertThat(hello(writer, m0)).isEqualTo(writer.address());

    try (Socket established = connect(operator, m0)) {
      BufferedReader in = reader(established);
      assertThat(in.readLine()).isEqualTo(operator.address());
      lab.cut(operator, m0);
      assertThat(lab.isCut(operator, m0)).isTrue();
      assertThat(lab.isCut(m0, operator)).isTrue();

      assertThatThrownBy(() -> hello(operator, m0)).isInstanceOf(SocketTimeoutException.class);
      established.setSoTimeout(CONNECT_MILLIS);
      new PrintWriter(established.getOutputStream(), true).println("still there?");
      assertThatThrownBy(in::readLine)
          .as("an established connection stalls")
          .isInstanceOf(SocketTimeoutException.class);
    }
    assertThat(hello(writer, m0)).isEqualTo(writer.address());
    assertThat(hello(operator, m1)).isEqualTo(operator.address());
    assertThat(lab.isCut(writer, m0)).isFalse();

    lab.heal(operator, m0);
    assertThat(lab.isCut(operator, m0)).isFalse();
    assertThat(hello(operator, m0)).isEqualTo(operator.address());
  }

  @Test
  void aHostToHostCutLeavesClientsAlone() {
    assertThat(fromHost(m0, m1)).isEqualTo(m0.address());
    assertThat(fromHost(m1, m0)).isEqualTo(m1.address());

    lab.cut(m0, m1);
    assertThat(fromHost(m0, m1)).isEqualTo("timeout");
    assertThat(fromHost(m1, m0)).isEqualTo("timeout");
    assertThat(hostReaches(m0, operator)).as("a host still reaches client identities").isTrue();
    assertThat(uncheckedHello(operator, m0)).isEqualTo(operator.address());
    assertThat(uncheckedHello(operator, m1)).isEqualTo(operator.address());

    lab.heal(m1, m0);
    assertThat(fromHost(m0, m1)).isEqualTo(m0.address());
  }

  @Test
  void anIsolatedHostIsCutFromEveryEndpoint() throws IOException {
    lab.isolate(m1);
    assertThat(List.of(m0, operator, writer)).allMatch(e -> lab.isCut(m1, e));
    assertThat(lab.isCut(m0, operator)).isFalse();
    assertThat(fromHost(m0, m1)).isEqualTo("timeout");
    assertThatThrownBy(() -> hello(writer, m1)).isInstanceOf(SocketTimeoutException.class);
    assertThat(hello(writer, m0)).isEqualTo(writer.address());

    lab.healAll();
    assertThat(fromHost(m0, m1)).isEqualTo(m0.address());
    assertThat(hello(writer, m1)).isEqualTo(writer.address());
  }

  @Test
  void aOneWayCutDropsOnlyOneDirection() throws IOException {
    lab.cutOneWay(operator, m0);
    assertThat(lab.isCutOneWay(operator, m0)).isTrue();
    assertThat(lab.isCutOneWay(m0, operator)).isFalse();
    assertThat(lab.isCut(m0, operator)).isTrue();
    assertThat(udpEcho(operator, m0, "ping-1")).isFalse();
    // The writer's datagram takes the same path to the same server thread after ping-1, so once
    // its echo is back, ping-1 would have been logged if it had arrived.
    assertThat(udpEcho(writer, m0, "ping-2")).isTrue();
    assertThat(log(m0)).contains("udp " + writer.address() + " ping-2");
    assertThat(log(m0)).doesNotContain("ping-1");
    assertThatThrownBy(() -> hello(operator, m0)).isInstanceOf(SocketTimeoutException.class);
    lab.healAll();

    lab.cutOneWay(m0, operator);
    assertThat(udpEcho(operator, m0, "ping-3")).as("the echo is dropped").isFalse();
    await("ping-3 arrives at m0")
        .atMost(Duration.ofSeconds(10))
        .until(() -> log(m0).contains("udp " + operator.address() + " ping-3"));
    assertThat(udpEcho(writer, m0, "ping-4")).isTrue();
    lab.heal(operator, m0);
    assertThat(udpEcho(operator, m0, "ping-5")).isTrue();
  }

  @Test
  void aRelayConnectsFromItsIdentityAndIsCutWithIt() throws IOException {
    Relay viaOperator = operator.relayTo(m0, PORT);
    Relay viaWriter = writer.relayTo(m0, PORT);
    assertThat(viaOperator.host()).isEqualTo("127.0.0.1");
    try (Socket s = new Socket(viaOperator.host(), viaOperator.port())) {
      s.setSoTimeout(5_000);
      BufferedReader in = reader(s);
      assertThat(in.readLine()).as("the server sees the identity").isEqualTo(operator.address());
      new PrintWriter(s.getOutputStream(), true).println("through the relay");
      assertThat(in.readLine()).isEqualTo("through the relay");
    }

    lab.cut(operator, m0);
    try (Socket s = new Socket(viaOperator.host(), viaOperator.port())) {
      s.setSoTimeout(CONNECT_MILLIS);
      assertThatThrownBy(() -> reader(s).readLine()).isInstanceOf(SocketTimeoutException.class);
    }
    assertThat(greeting(viaWriter)).isEqualTo(writer.address());

    lab.heal(operator, m0);
    assertThat(greeting(viaOperator)).isEqualTo(operator.address());
    viaOperator.close();
    assertThatThrownBy(() -> greeting(viaOperator)).isInstanceOf(ConnectException.class);
  }

  @Test
  void endpointsOfAnotherLabOrTwiceTheSameNameAreRefused() {
    try (NetworkLab other = NetworkLab.create("network-lab-it-other")) {
      assertThat(other.index()).isNotEqualTo(lab.index());
      TestHost foreign = other.host("m0");
      assertThat(foreign.address()).isNotEqualTo(m0.address());
      assertThatThrownBy(() -> lab.cut(operator, foreign))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> other.host("m0")).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> other.client("Bad_Name"))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void closeLeavesNoNamespaceInterfaceAddressOrRuleBehind() throws IOException {
    NetworkLab closing = NetworkLab.create("network-lab-it-close");
    int index = closing.index();
    TestHost h = closing.host("c0");
    ClientIdentity c = closing.client("c");
    closing.cut(c, h);
    LocalProcess inside = echoServer(h);
    Relay relay = c.relayTo(h, PORT);
    assertThat(leftovers(index)).hasSize(5);

    closing.close();

    assertThat(leftovers(index)).isEmpty();
    await("the server in the namespace to be killed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !inside.isAlive());
    assertThatThrownBy(() -> greeting(relay)).isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> closing.host("late")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aWatchdogRemovesTheLabOfAKilledJvm() throws Exception {
    Process child = childJvm();
    int index = childLab(child);
    assertThat(leftovers(index)).isNotEmpty();

    child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

    await("the watchdog to remove lab " + index)
        .atMost(Duration.ofSeconds(30))
        .until(() -> leftovers(index).isEmpty());
  }

  @Test
  void theNextCreateRemovesALabWhoseJvmAndWatchdogDied() throws Exception {
    Process child = childJvm();
    int index = childLab(child);
    Properties state = LabDirectory.readState(LabDirectory.stateFile(index));
    long watchdog = Long.parseLong(state.getProperty("watchdog"));
    ProcessHandle.of(watchdog).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(watchdog).isEmpty());
    child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    assertThat(leftovers(index)).as("nobody cleaned up yet").hasSize(5);

    try (NetworkLab next = NetworkLab.create("network-lab-it-next")) {
      // The new lab may have taken the freed index: then only its own (empty) chain and state.
      List<String> expected =
          next.index() == index ? List.of("iptables chain", "state file") : List.of();
      assertThat(leftovers(index)).isEqualTo(expected);
    }
    assertThat(leftovers(index)).isEmpty();
  }

  /** Lab {@code index}'s resources still present: namespaces, links, addresses, chain, state. */
  private static List<String> leftovers(int index) {
    List<String> found = new ArrayList<>();
    if (Shell.run("ip", "netns", "list").contains(NetworkLab.namespacePrefix(index))) {
      found.add("namespace");
    }
    if (Pattern.compile(": bl" + index + "h\\d+[rn]\\b")
        .matcher(Shell.run("ip", "-o", "link", "show"))
        .find()) {
      found.add("veth");
    }
    if (Shell.run("ip", "-o", "-4", "addr", "show", "dev", "lo")
        .contains(" " + NetworkLab.subnetPrefix(index))) {
      found.add("identity address");
    }
    if (Pattern.compile("BOSUN-LAB-" + index + "(?!\\d)")
        .matcher(Shell.run("iptables-save"))
        .find()) {
      found.add("iptables chain");
    }
    if (Files.exists(LabDirectory.stateFile(index))) {
      found.add("state file");
    }
    return found;
  }

  /** A JVM that makes a lab with a host, an identity and a cut, prints its index and waits. */
  private static Process childJvm() throws IOException {
    Files.createDirectories(LOGS);
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(
            java, "-cp", System.getProperty("java.class.path"), LabOwner.class.getName())
        .redirectError(LOGS.resolve("child-jvm.log").toFile())
        .start();
  }

  private static int childLab(Process child) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).as("the child JVM's lab index").matches("lab \\d+");
    return Integer.parseInt(line.substring(4));
  }

  /** The child JVM of the watchdog and stale-lab tests. */
  static final class LabOwner {
    public static void main(String[] args) throws Exception {
      NetworkLab lab = NetworkLab.create("network-lab-it-child");
      TestHost h = lab.host("h");
      lab.cut(lab.client("c"), h);
      System.out.println("lab " + lab.index());
      System.out.flush();
      // Bounded: ends (and closes the lab at exit) when the parent closes stdin or after 2 min.
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (System.nanoTime() < end && System.in.read() >= 0) {
        // wait for the parent
      }
    }
  }

  private static LocalProcess echoServer(TestHost h) {
    LocalProcess p =
        LocalProcess.start(
            "echo-" + h.namespace(),
            h.wrap(List.of("python3", "-c", ECHO, h.address(), Integer.toString(PORT))),
            LOGS.resolve(h.namespace() + ".log"));
    return p.awaitPort(h.address(), PORT, Duration.ofSeconds(30));
  }

  private static String log(TestHost h) throws IOException {
    return Files.readString(LOGS.resolve(h.namespace() + ".log"));
  }

  private static Socket connect(ClientIdentity from, TestHost to) throws IOException {
    Socket s = new Socket();
    try {
      s.bind(new InetSocketAddress(from.address(), 0));
      s.connect(new InetSocketAddress(to.address(), PORT), CONNECT_MILLIS);
      s.setSoTimeout(5_000);
      return s;
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  /** The server's greeting to a connection from {@code from}: the address it sees. */
  private static String hello(ClientIdentity from, TestHost to) throws IOException {
    try (Socket s = connect(from, to)) {
      return reader(s).readLine();
    }
  }

  private static String uncheckedHello(ClientIdentity from, TestHost to) {
    try {
      return hello(from, to);
    } catch (IOException e) {
      throw new AssertionError(from + " cannot reach " + to, e);
    }
  }

  private static String greeting(Relay relay) throws IOException {
    try (Socket s = new Socket(relay.host(), relay.port())) {
      s.setSoTimeout(5_000);
      return reader(s).readLine();
    }
  }

  /** Whether a UDP datagram from {@code from} to {@code to} comes back within the timeout. */
  private static boolean udpEcho(ClientIdentity from, TestHost to, String text) throws IOException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(from.address(), 0))) {
      s.setSoTimeout(CONNECT_MILLIS);
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      s.send(new DatagramPacket(bytes, bytes.length, new InetSocketAddress(to.address(), PORT)));
      DatagramPacket reply = new DatagramPacket(new byte[256], 256);
      s.receive(reply);
      return new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8).equals(text);
    } catch (SocketTimeoutException lost) {
      return false;
    } catch (SocketException dropped) {
      // A datagram dropped by the root namespace's OUTPUT hook fails at once with EPERM (a TCP
      // segment is retransmitted instead, so TCP sees a silent partition).
      assertThat(dropped).hasMessageContaining("Operation not permitted");
      return false;
    }
  }

  /** The greeting {@code to}'s server sends a connection from inside {@code from}, or "timeout". */
  private static String fromHost(TestHost from, TestHost to) {
    return inside(from, to.address());
  }

  private static boolean hostReaches(TestHost from, ClientIdentity to) {
    try (ServerSocket listening = new ServerSocket(0, 5, InetAddress.getByName(to.address()))) {
      String script =
          "import socket, sys\n"
              + "s = socket.create_connection((sys.argv[1], int(sys.argv[2])), 2)\n"
              + "print('connected')\n";
      Shell.Result r =
          Shell.exec(
              from.wrap(
                  List.of(
                      "python3",
                      "-c",
                      script,
                      to.address(),
                      Integer.toString(listening.getLocalPort()))));
      return r.exit() == 0 && r.stdout().strip().equals("connected");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String inside(TestHost from, String address) {
    String script =
        "import socket, sys\n"
            + "try:\n"
            + "    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), 1.5)\n"
            + "    s.settimeout(5)\n"
            + "    print(s.makefile().readline().strip())\n"
            + "except (TimeoutError, socket.timeout):\n"
            + "    print('timeout')\n";
    Shell.Result r =
        Shell.exec(from.wrap(List.of("python3", "-c", script, address, Integer.toString(PORT))));
    assertThat(r.exit()).as(r.stderr()).isZero();
    return r.stdout().strip();
  }

  private static BufferedReader reader(Socket s) throws IOException {
    return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
  }
}
