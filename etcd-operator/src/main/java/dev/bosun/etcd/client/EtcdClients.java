package dev.bosun.etcd.client;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.ManagedChannel;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One jetcd client per member endpoint, reused across reconciles. Each client talks to exactly one
 * member, because some calls must reach a particular one (moveLeader goes to the leader, a status
 * describes the member that answers).
 */
public final class EtcdClients implements AutoCloseable {

  /** How long connecting to a member may take: a dead member fails a call at once. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

  private final Map<URI, Client> clients = new ConcurrentHashMap<>();
  private final UnaryOperator<ClientBuilder> customizer;
  private final UnaryOperator<URI> route;
  private final MemberChannels channels;

  /** Plain-text clients. */
  public EtcdClients() {
    this(UnaryOperator.identity());
  }

  /** Clients the customizer adapts (TLS, credentials). */
  public EtcdClients(UnaryOperator<ClientBuilder> customizer) {
    this(customizer, UnaryOperator.identity());
  }

  /**
   * Clients that reach each member endpoint at the address {@code route} gives (the identity in a
   * cluster; a relay in partition drills, so the operator's traffic can be cut on its own).
   */
  public EtcdClients(UnaryOperator<ClientBuilder> customizer, UnaryOperator<URI> route) {
    this.customizer = customizer;
    this.route = route;
    this.channels =
        new MemberChannels(() -> customizer.apply(Client.builder()), this::target, CONNECT_TIMEOUT);
  }

  /** What a per-member call (status, defragment) names as its target for this endpoint. */
  public String target(URI endpoint) {
    return route.apply(endpoint).toString();
  }

  /** The client of one member endpoint. */
  public Client of(URI endpoint) {
    return clients.computeIfAbsent(endpoint, this::build);
  }

  /**
   * The channel of one member endpoint for the calls that must reach that very member (status,
   * defragment); reused, and shut down with the member's client.
   */
  public ManagedChannel channel(URI endpoint) {
    return channels.of(endpoint);
  }

  private Client build(URI endpoint) {
    ClientBuilder builder =
        Client.builder()
            .endpoints(route.apply(endpoint))
            // A dead member must fail a call at once, not hold it until the deadline.
            .waitForReady(false)
            .connectTimeout(CONNECT_TIMEOUT)
            // etcd answers pings without calls with too_many_pings GOAWAYs.
            .keepaliveWithoutCalls(false)
            .retryMaxAttempts(1)
            .interceptor(new Deadlines())
            .retryMaxDuration(Duration.ofSeconds(2));
    return customizer.apply(builder).build();
  }

  /** The endpoints that have an open client. */
  public Set<URI> endpoints() {
    return Set.copyOf(clients.keySet());
  }

  /** Closes the clients of endpoints that are no longer in use (members that left). */
  public void retain(Set<URI> inUse) {
    channels.retain(inUse);
    closeAllBut(clients, inUse, Client::close);
  }

  /** Removes and closes what {@code open} holds for endpoints not in {@code inUse}. */
  static <T> void closeAllBut(Map<URI, T> open, Set<URI> inUse, Consumer<T> close) {
    open.entrySet()
        .removeIf(
            e -> {
              if (inUse.contains(e.getKey())) {
                return false;
              }
              close.accept(e.getValue());
              return true;
            });
  }

  @Override
  public void close() {
    channels.close();
    clients.values().forEach(Client::close);
    clients.clear();
  }
}
