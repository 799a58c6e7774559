package dev.bosun.etcd.client;

import io.etcd.jetcd.ClientBuilder;
import io.grpc.ManagedChannel;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One gRPC channel per member for the calls that must reach that very member (status, defragment),
 * kept for reuse and shut down when the member leaves or the clients close. jetcd's own per-member
 * calls open a channel per call and shut it down only when the call completes: a call to a member
 * that does not answer outlives the caller's timeout, and once its client was closed it never
 * completes, so its channel was only garbage collected, never shut down.
 */
final class MemberChannels implements AutoCloseable {

  private final Map<URI, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Supplier<ClientBuilder> settings;
  private final Function<URI, String> target;
  private final Duration connectTimeout;

  /**
   * Channels to {@code target(endpoint)}, with the TLS, authority and interceptors of {@code
   * settings} (the same builder the member's jetcd client is made from).
   */
  MemberChannels(
      Supplier<ClientBuilder> settings, Function<URI, String> target, Duration connectTimeout) {
    this.settings = settings;
    this.target = target;
    this.connectTimeout = connectTimeout;
  }

  /** The channel of one member endpoint. */
  ManagedChannel of(URI endpoint) {
    return channels.computeIfAbsent(endpoint, this::open);
  }

  private ManagedChannel open(URI endpoint) {
    ClientBuilder s = settings.get();
    NettyChannelBuilder builder =
        NettyChannelBuilder.forTarget(target.apply(endpoint))
            .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
            // etcd answers pings without calls with too_many_pings GOAWAYs.
            .keepAliveWithoutCalls(false);
    if (s.sslContext() != null) {
      builder.sslContext(s.sslContext()).negotiationType(NegotiationType.TLS);
    } else {
      builder.usePlaintext();
    }
    if (s.authority() != null) {
      builder.overrideAuthority(s.authority());
    }
    if (s.interceptors() != null && !s.interceptors().isEmpty()) {
      builder.intercept(s.interceptors());
    }
    return builder.build();
  }

  /** Shuts down the channels of endpoints that are no longer in use (members that left). */
  void retain(Set<URI> inUse) {
    EtcdClients.closeAllBut(channels, inUse, ManagedChannel::shutdownNow);
  }

  @Override
  public void close() {
    retain(Set.of());
  }
}
