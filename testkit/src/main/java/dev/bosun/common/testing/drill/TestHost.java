package dev.bosun.common.testing.drill;

import java.util.ArrayList;
import java.util.List;

/**
 * A network namespace of a {@link NetworkLab}, joined to the root namespace by a veth pair: a
 * server started with {@link #wrap} listens on {@link #address()} and is reached only through the
 * root namespace, where the lab's rules can cut it off.
 */
public final class TestHost implements Endpoint {

  private final String name;
  private final String namespace;
  private final String address;
  private final String gateway;

  TestHost(String name, String namespace, String address, String gateway) {
    this.name = name;
    this.namespace = namespace;
    this.address = address;
    this.gateway = gateway;
  }

  @Override
  public String name() {
    return name;
  }

  /** The host's address inside its namespace: where a server in it listens. */
  @Override
  public String address() {
    return address;
  }

  /**
   * The root-namespace end of the host's veth (its default route). Traffic from the root namespace
   * without a bound source address leaves from here; it is never cut.
   */
  public String gateway() {
    return gateway;
  }

  /** The network namespace's name, for {@code ip netns exec}. */
  public String namespace() {
    return namespace;
  }

  /** {@code command} run inside this host's namespace: hand the result to LocalProcess. */
  public List<String> wrap(List<String> command) {
    List<String> wrapped = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    wrapped.addAll(command);
    return List.copyOf(wrapped);
  }

  @Override
  public String toString() {
    return name + "(" + address + ")";
  }
}
