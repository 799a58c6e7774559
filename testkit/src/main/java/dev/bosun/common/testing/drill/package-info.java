/**
 * Partition drills: a {@link dev.bosun.common.testing.drill.NetworkLab} of test hosts (network
 * namespaces) and client identities (addresses in the root namespace) whose traffic a drill cuts
 * with iptables, an {@link dev.bosun.common.testing.drill.AckedWriter} that records which writes
 * were acknowledged, and a {@link dev.bosun.common.testing.drill.DrillTable} of the results.
 *
 * <p>Topology of lab N (10.252.N.0/24, N unique on the machine):
 *
 * <pre>
 *   netns bosun-labN-m0            root namespace                    netns bosun-labN-m1
 *   10.252.N.6/30 ── veth ── 10.252.N.5/30   10.252.N.9/30 ── veth ── 10.252.N.10/30
 *   (default via .5)          lo: 10.252.N.200/32 "operator"          (default via .9)
 *                                 10.252.N.201/32 "writer"
 *                             iptables: INPUT, OUTPUT, FORWARD -j BOSUN-LAB-N
 * </pre>
 *
 * <p>Host to host traffic is forwarded by the root namespace (FORWARD; forwarding is on for the
 * lab's veths only, the global ip_forward is never touched); identity to host is OUTPUT and host to
 * identity INPUT there. A cut is {@code -s a -d b -j DROP} plus the reverse in {@code BOSUN-LAB-N}.
 * TCP sees a cut as silence (connects time out, established connections stall); a UDP datagram an
 * identity sends into a cut fails at once with EPERM, because it is dropped on this machine's
 * output path.
 *
 * <p>Use:
 *
 * <pre>{@code
 * try (NetworkLab lab = NetworkLab.create("mysql-drill")) {
 *   TestHost m0 = lab.host("m0");
 *   LocalProcess db = LocalProcess.start("m0", m0.wrap(List.of("mariadbd", "--bind-address=" + m0.address(), ...)), log);
 *   ClientIdentity operator = lab.client("operator");
 *   // JDBC: bind to the identity
 *   String url = "jdbc:mariadb://" + m0.address() + ":3306/?localSocketAddress=" + operator.address();
 *   // jetcd / gRPC: go through a relay bound to the identity
 *   Relay viaOperator = operator.relayTo(e0, 2379);   // endpoint "http://" + viaOperator.hostPort()
 *   lab.cut(operator, m0);  ...  lab.heal(operator, m0);
 * }
 * }</pre>
 *
 * <p>A server inside a host reaches the root namespace through its {@link
 * dev.bosun.common.testing.drill.TestHost#gateway()} or an identity address, never loopback. Labs
 * are removed on close, at JVM exit, by a watchdog shell when the JVM is killed, and by the next
 * {@code create} anywhere on the machine if even the watchdog died. Needs root, {@code ip}
 * (iproute2), {@code iptables} (nft or legacy backend) and {@code flock} (util-linux).
 */
package dev.bosun.common.testing.drill;
