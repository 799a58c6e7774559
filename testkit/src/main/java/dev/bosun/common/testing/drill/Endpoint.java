package dev.bosun.common.testing.drill;

/** One end of a path a {@link NetworkLab} can cut: a test host or a client identity. */
public sealed interface Endpoint permits TestHost, ClientIdentity {

  /** The name given to the lab when this endpoint was made. */
  String name();

  /** The endpoint's IPv4 address (a /32 the lab's iptables rules match on). */
  String address();
}
