package dev.bosun.etcd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Puts a deadline on every gRPC call jetcd makes. jetcd sets none, so a call to a hung member (a
 * stopped process keeps its socket open) would wait forever and keep its channel alive; the
 * futures' own timeouts only stop the waiting, not the call.
 */
final class Deadlines implements ClientInterceptor {

  static final Duration CALL = Duration.ofSeconds(10);
  static final Duration SNAPSHOT = Duration.ofMinutes(10);

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (options.getDeadline() == null) {
      Duration d = method.getFullMethodName().endsWith("/Snapshot") ? SNAPSHOT : CALL;
      options = options.withDeadlineAfter(d.toMillis(), TimeUnit.MILLISECONDS);
    }
    return next.newCall(method, options);
  }
}
