package dev.bosun.common.testing.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test hosts in network namespaces and client identities in the root namespace, whose traffic a
 * drill cuts and heals with iptables.
 *
 * <p>Topology: lab N owns 10.252.N.0/24. Host i (1..49) is namespace {@code bosun-labN-<name>} with
 * address 10.252.N.(4i+2)/30 on one end of a veth pair; the other end, in the root namespace, is
 * 10.252.N.(4i+1)/30 and the host's default route. Host-to-host traffic is routed through the root
 * namespace (IPv4 forwarding is on while a lab exists). Client identities are 10.252.N.200-254,
 * /32s on {@code lo}. Every packet between lab addresses passes the root namespace's INPUT, OUTPUT
 * or FORWARD hook, each of which jumps to the lab's chain {@code BOSUN-LAB-N}, where a cut is a
 * pair of {@code -s from -d to -j DROP} rules.
 *
 * <p>Labs of concurrent JVMs never share an index (see {@link LabDirectory}); a lab is removed on
 * {@link #close()}, at JVM exit, by a watchdog if the JVM is killed, and at the next {@link
 * #create} anywhere on the machine if even the watchdog is gone.
 */
public final class NetworkLab implements AutoCloseable {

  static final int MAX_HOSTS = 49;
  static final int FIRST_CLIENT = 200;
  static final int MAX_CLIENTS = 55;

  private static final String NAME = "[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?";
  private static final Set<NetworkLab> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> List.copyOf(OPEN).forEach(NetworkLab::close), "network-lab-reaper"));
  }

  private final String name;
  private final LabDirectory.Slot slot;
  private final Map<String, TestHost> hosts = new LinkedHashMap<>();
  private final Map<String, ClientIdentity> clients = new LinkedHashMap<>();
  private final Set<Direction> cuts = new HashSet<>();
  private final List<Relay> relays = new ArrayList<>();
  private boolean closed;

  private record Direction(Endpoint from, Endpoint to) {}

  private NetworkLab(String name, LabDirectory.Slot slot) {
    this.name = name;
    this.slot = slot;
  }

  /** A new, empty lab with an index no other lab on this machine holds. */
  public static NetworkLab create(String name) {
    LabDirectory.Slot slot = LabDirectory.claim(name);
    NetworkLab lab = new NetworkLab(name, slot);
    OPEN.add(lab);
    try {
      String chain = chain(slot.index());
      Shell.run("iptables", "-w", "-N", chain);
      String subnet = subnetPrefix(slot.index()) + "0/24";
      Shell.run("iptables", "-w", "-A", chain, "-s", subnet, "-d", subnet, "-j", "ACCEPT");
      for (String hook : List.of("INPUT", "OUTPUT", "FORWARD")) {
        Shell.run("iptables", "-w", "-I", hook, "1", "-j", chain);
      }
      return lab;
    } catch (RuntimeException e) {
      lab.close();
      throw e;
    }
  }

  /** A new test host: a namespace with {@code lo} up and a veth to the root namespace. */
  public synchronized TestHost host(String hostName) {
    checkOpen();
    requireNewName(hostName);
    int i = hosts.size() + 1;
    if (i > MAX_HOSTS) {
      throw new IllegalStateException("a lab has at most " + MAX_HOSTS + " hosts");
    }
    String ns = namespacePrefix(index()) + hostName;
    String outside = linkPrefix(index()) + i + "r";
    String inside = linkPrefix(index()) + i + "n";
    String gateway = subnetPrefix(index()) + (4 * i + 1);
    String address = subnetPrefix(index()) + (4 * i + 2);
    TestHost host = new TestHost(hostName, ns, address, gateway);
    hosts.put(hostName, host);
    Shell.run("ip", "netns", "add", ns);
    Shell.run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
    Shell.run("ip", "link", "set", inside, "netns", ns);
    Shell.run("ip", "addr", "add", gateway + "/30", "dev", outside);
    Shell.run("ip", "link", "set", outside, "up");
    forwardFrom(outside);
    Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
    Shell.run("ip", "-n", ns, "addr", "add", address + "/30", "dev", inside);
    Shell.run("ip", "-n", ns, "link", "set", inside, "up");
    Shell.run("ip", "-n", ns, "route", "add", "default", "via", gateway);
    return host;
  }

  /** A new client identity: an address on the root namespace's {@code lo}. */
  public synchronized ClientIdentity client(String clientName) {
    checkOpen();
    requireNewName(clientName);
    if (clients.size() >= MAX_CLIENTS) {
      throw new IllegalStateException("a lab has at most " + MAX_CLIENTS + " client identities");
    }
    String address = subnetPrefix(index()) + (FIRST_CLIENT + clients.size());
    ClientIdentity client = new ClientIdentity(clientName, address, this);
    clients.put(clientName, client);
    Shell.run("ip", "addr", "add", address + "/32", "dev", "lo");
    return client;
  }

  /** Drops every packet between {@code a} and {@code b}, both directions. */
  public synchronized void cut(Endpoint a, Endpoint b) {
    cutOneWay(a, b);
    cutOneWay(b, a);
  }

  /** Drops the packets from {@code from} to {@code to}; the other direction still passes. */
  public synchronized void cutOneWay(Endpoint from, Endpoint to) {
    checkOpen();
    requireMember(from);
    requireMember(to);
    if (from.equals(to)) {
      throw new IllegalArgumentException("cannot cut " + from + " from itself");
    }
    if (cuts.add(new Direction(from, to))) {
      dropRule("-I", from, to);
    }
  }

  /**
   * Cuts {@code e} from every other endpoint of the lab so far (both directions), as when its
   * machine drops off the network; endpoints made later are not cut. Traffic from the root
   * namespace without a bound identity (from a host's gateway address) still passes.
   */
  public synchronized void isolate(Endpoint e) {
    requireMember(e);
    List<Endpoint> all = new ArrayList<>(hosts.values());
    all.addAll(clients.values());
    all.stream().filter(other -> !other.equals(e)).forEach(other -> cut(e, other));
  }

  /** Lets packets between {@code a} and {@code b} pass again, both directions. */
  public synchronized void heal(Endpoint a, Endpoint b) {
    checkOpen();
    healOneWay(a, b);
    healOneWay(b, a);
  }

  /** Removes every cut of this lab. */
  public synchronized void healAll() {
    checkOpen();
    List.copyOf(cuts).forEach(d -> healOneWay(d.from(), d.to()));
  }

  /** True if packets from {@code a} to {@code b} or from {@code b} to {@code a} are dropped. */
  public synchronized boolean isCut(Endpoint a, Endpoint b) {
    return isCutOneWay(a, b) || isCutOneWay(b, a);
  }

  /** True if packets from {@code from} to {@code to} are dropped. */
  public synchronized boolean isCutOneWay(Endpoint from, Endpoint to) {
    return cuts.contains(new Direction(from, to));
  }

  /** This lab's index N: its addresses are 10.252.N.0/24. */
  public int index() {
    return slot.index();
  }

  /** The lab's name, as given to {@link #create}. */
  public String name() {
    return name;
  }

  /** The hosts made so far, in order. */
  public synchronized List<TestHost> hosts() {
    return List.copyOf(hosts.values());
  }

  /** The client identities made so far, in order. */
  public synchronized List<ClientIdentity> clients() {
    return List.copyOf(clients.values());
  }

  /**
   * Removes the lab: relays, iptables chain and jumps, namespaces (killing what still runs in
   * them), veths and identity addresses.
   */
  @Override
  public void close() {
    List<Relay> open;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      open = List.copyOf(relays);
    }
    open.forEach(Relay::close);
    LabDirectory.release(slot);
    OPEN.remove(this);
  }

  @Override
  public String toString() {
    return "NetworkLab(" + name + ", 10.252." + index() + ".0/24)";
  }

  synchronized Relay relay(ClientIdentity from, TestHost to, int port) {
    checkOpen();
    requireMember(from);
    requireMember(to);
    Relay relay = Relay.start(from, to, port);
    relays.add(relay);
    return relay;
  }

  static String chain(int index) {
    return "BOSUN-LAB-" + index;
  }

  static String namespacePrefix(int index) {
    return "bosun-lab" + index + "-";
  }

  /** Veth names: {@code bl<N>h<i>r} (root side) and {@code bl<N>h<i>n}, at most 9 characters. */
  static String linkPrefix(int index) {
    return "bl" + index + "h";
  }

  static String subnetPrefix(int index) {
    return "10.252." + index + ".";
  }

  private void healOneWay(Endpoint from, Endpoint to) {
    if (cuts.remove(new Direction(from, to))) {
      dropRule("-D", from, to);
    }
  }

  /**
   * Inserts ({@code -I}, ahead of the chain's final ACCEPT) or deletes ({@code -D}) the rule
   * dropping packets from → to.
   */
  private void dropRule(String operation, Endpoint from, Endpoint to) {
    Shell.run(
        "iptables",
        "-w",
        operation,
        chain(index()),
        "-s",
        from.address() + "/32",
        "-d",
        to.address() + "/32",
        "-j",
        "DROP");
  }

  /** Lets packets that arrive on {@code link} be forwarded (to other hosts of the lab). */
  private static void forwardFrom(String link) {
    try {
      Files.writeString(Path.of("/proc/sys/net/ipv4/conf", link, "forwarding"), "1\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot switch forwarding on for " + link, e);
    }
  }

  private void requireNewName(String endpointName) {
    if (!endpointName.matches(NAME)) {
      throw new IllegalArgumentException(
          "endpoint names are lower-case letters, digits and '-' (at most 32): " + endpointName);
    }
    if (hosts.containsKey(endpointName) || clients.containsKey(endpointName)) {
      throw new IllegalArgumentException(endpointName + " exists in " + this);
    }
  }

  private void requireMember(Endpoint e) {
    boolean member =
        e instanceof TestHost h ? hosts.get(h.name()) == h : clients.get(e.name()) == e;
    if (!member) {
      throw new IllegalArgumentException(e + " is not an endpoint of " + this);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }
}
