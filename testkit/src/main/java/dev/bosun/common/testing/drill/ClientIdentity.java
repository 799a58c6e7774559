package dev.bosun.common.testing.drill;

/**
 * An extra address of a {@link NetworkLab} in the root namespace (a /32 on {@code lo}). An in-JVM
 * client binds its sockets to it (MariaDB Connector/J: {@code localSocketAddress=<address>}) so the
 * lab can cut that client's traffic apart from everyone else's. Clients that cannot bind (jetcd,
 * gRPC) connect through {@link #relayTo} instead.
 */
public final class ClientIdentity implements Endpoint {

  private final String name;
  private final String address;
  private final NetworkLab lab;

  ClientIdentity(String name, String address, NetworkLab lab) {
    this.name = name;
    this.address = address;
    this.lab = lab;
  }

  @Override
  public String name() {
    return name;
  }

  /** The address to bind client sockets to. */
  @Override
  public String address() {
    return address;
  }

  /**
   * A TCP relay on loopback that forwards every connection to {@code host:port} from a socket bound
   * to this identity, so a client that cannot choose its source address is cut with this identity.
   * Closed with the lab (or earlier by {@link Relay#close()}).
   */
  public Relay relayTo(TestHost host, int port) {
    return lab.relay(this, host, port);
  }

  @Override
  public String toString() {
    return name + "(" + address + ")";
  }
}
