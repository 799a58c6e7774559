package dev.bosun.etcd.testing;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.function.Predicate;

/**
 * Cuts the operator off etcd at a chosen call, as if its process died right there: before the call
 * is sent, or as soon as its answer is in. From then on every etcd call fails before it is sent,
 * and {@code onCut} runs at once (a chaos lab cuts the API server too, so nothing the operator does
 * after the boundary reaches anything). The etcd twin of the test kit's {@code ApiCut}.
 */
public final class EtcdCut implements ClientInterceptor {

  private volatile Predicate<String> trigger = method -> false;
  private volatile boolean includingTrigger;
  private volatile String cutAt;
  private volatile Runnable onCut = () -> {};

  /** Cuts at the first call whose full gRPC method name {@code method} matches: it is not sent. */
  public void before(Predicate<String> method, Runnable onCut) {
    arm(method, true, onCut);
  }

  /** Cuts once the first matching call has its answer: it is sent, no later one. */
  public void after(Predicate<String> method, Runnable onCut) {
    arm(method, false, onCut);
  }

  private synchronized void arm(Predicate<String> method, boolean including, Runnable then) {
    cutAt = null;
    includingTrigger = including;
    onCut = then;
    trigger = method;
  }

  /** The call the cut happened at, or null while the operator still reaches etcd. */
  public String cutAt() {
    return cutAt;
  }

  /** Disarms the cut and lets every call through again. */
  public synchronized void heal() {
    trigger = method -> false;
    cutAt = null;
    onCut = () -> {};
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    String name = method.getFullMethodName();
    synchronized (this) {
      if (cutAt != null) {
        return failed(name);
      }
      if (trigger.test(name)) {
        if (includingTrigger) {
          cut(name);
          return failed(name);
        }
        return cutOnAnswer(name, next.newCall(method, options));
      }
    }
    return next.newCall(method, options);
  }

  private synchronized void cut(String name) {
    if (cutAt == null) {
      cutAt = name;
      onCut.run();
    }
  }

  /** The call as sent, the cut made as its answer comes in, before the caller sees it. */
  private <Q, R> ClientCall<Q, R> cutOnAnswer(String name, ClientCall<Q, R> call) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                cut(name);
                super.onClose(status, trailers);
              }
            },
            headers);
      }
    };
  }

  /** A call that fails at its start, never reaching the channel. */
  private <Q, R> ClientCall<Q, R> failed(String name) {
    String why = "cut off etcd (at " + cutAt + "): " + name;
    return new ClientCall<>() {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        listener.onClose(Status.UNAVAILABLE.withDescription(why), new Metadata());
      }

      @Override
      public void request(int numMessages) {}

      @Override
      public void cancel(String message, Throwable cause) {}

      @Override
      public void halfClose() {}

      @Override
      public void sendMessage(Q message) {}
    };
  }
}
