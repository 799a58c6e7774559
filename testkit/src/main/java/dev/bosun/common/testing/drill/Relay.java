package dev.bosun.common.testing.drill;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay listening on loopback that opens, for each accepted connection, a connection from a
 * {@link ClientIdentity}'s address to a test host, and copies bytes both ways. A cut between the
 * identity and the host stalls relayed connections the way a partition does; a new connection is
 * accepted and then closed once the outward connect times out ({@link #CONNECT_TIMEOUT}).
 */
public final class Relay implements AutoCloseable {

  /** Connections relayed at once; more are closed at once (each takes two threads). */
  public static final int MAX_CONNECTIONS = 32;

  /** How long the outward connect may take before the client's connection is closed. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private static final String LOOPBACK = "127.0.0.1";

  private final String from;
  private final InetSocketAddress to;
  private final ServerSocket server;
  private final ThreadPoolExecutor pumps;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  private Relay(String from, InetSocketAddress to, ServerSocket server, String label) {
    this.from = from;
    this.to = to;
    this.server = server;
    AtomicInteger count = new AtomicInteger();
    this.pumps =
        new ThreadPoolExecutor(
            0,
            2 * MAX_CONNECTIONS,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> daemon(r, label + "-pump-" + count.incrementAndGet()));
    this.acceptor = daemon(this::accept, label + "-accept");
  }

  static Relay start(ClientIdentity from, TestHost host, int port) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK));
      Relay relay =
          new Relay(
              from.address(),
              new InetSocketAddress(host.address(), port),
              server,
              "relay-" + from.name() + "-" + host.name() + "-" + port);
      relay.acceptor.start();
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a relay on " + LOOPBACK, e);
    }
  }

  /** Where clients connect: a loopback address. */
  public String host() {
    return LOOPBACK;
  }

  /** The relay's port on {@link #host()}. */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code host:port}, for client endpoint lists. */
  public String hostPort() {
    return host() + ":" + port();
  }

  /** Stops accepting and closes every relayed connection. */
  @Override
  public void close() {
    closeQuietly(server);
    open.forEach(Relay::closeQuietly);
    pumps.shutdownNow();
    try {
      acceptor.join(Duration.ofSeconds(5).toMillis());
      pumps.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return hostPort() + " -> " + from + " -> " + to;
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException closed) {
        return;
      }
      if (open.size() >= 2 * MAX_CONNECTIONS) {
        closeQuietly(client);
        continue;
      }
      open.add(client);
      try {
        pumps.execute(() -> connect(client));
      } catch (RejectedExecutionException full) {
        close(client);
      }
    }
  }

  private void connect(Socket client) {
    Socket outward = new Socket();
    open.add(outward);
    try {
      outward.bind(new InetSocketAddress(from, 0));
      outward.connect(to, (int) CONNECT_TIMEOUT.toMillis());
      AtomicInteger ended = new AtomicInteger();
      pumps.execute(() -> pump(outward, client, ended));
      pump(client, outward, ended);
    } catch (IOException | RejectedExecutionException e) {
      close(client);
      close(outward);
    }
  }

  /**
   * Copies {@code in} to {@code out}; at the end of {@code in} half-closes {@code out}, and closes
   * both once both directions have {@code ended}.
   */
  private void pump(Socket in, Socket out, AtomicInteger ended) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream input = in.getInputStream();
      OutputStream output = out.getOutputStream();
      int n;
      while ((n = input.read(buffer)) >= 0) {
        output.write(buffer, 0, n);
        output.flush();
      }
      out.shutdownOutput();
      if (ended.incrementAndGet() == 2) {
        close(in);
        close(out);
      }
    } catch (IOException e) {
      close(in);
      close(out);
    }
  }

  private void close(Socket socket) {
    open.remove(socket);
    closeQuietly(socket);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing is best effort: the peer may be gone already
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
