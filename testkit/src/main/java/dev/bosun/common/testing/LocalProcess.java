package dev.bosun.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A server process a test runs on this machine (etcd, MariaDB, kube-apiserver, s3rver). It runs in
 * a session of its own, so a signal to one test's process group never reaches it, under a watchdog
 * shell that ends it when this JVM is gone, so a killed test run leaks nothing. Signals go to the
 * server itself, not the watchdog: {@link #kill()} is a real {@code kill -9} of the server.
 */
public final class LocalProcess implements AutoCloseable {

  private static final Set<LocalProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(p -> p.signal("KILL")), "local-process-reaper"));
  }

  private final String name;
  private final Process watchdog;
  private final long pid;
  private final Path log;

  private LocalProcess(String name, Process watchdog, long pid, Path log) {
    this.name = name;
    this.watchdog = watchdog;
    this.pid = pid;
    this.log = log;
  }

  /** Starts {@code command}, its output (stdout and stderr) going to {@code logFile}. */
  public static LocalProcess start(String name, List<String> command, Path logFile) {
    return start(name, command, logFile, Map.of());
  }

  /** Starts {@code command} with extra environment variables. */
  public static LocalProcess start(
      String name, List<String> command, Path logFile, Map<String, String> environment) {
    try {
      Files.createDirectories(logFile.toAbsolutePath().getParent());
      Path pidFile = Files.createTempFile("bosun-" + name.replaceAll("[^A-Za-z0-9-]", "_"), ".pid");
      Files.delete(pidFile);
      long jvm = ProcessHandle.current().pid();
      String quoted = String.join(" ", command.stream().map(LocalProcess::shellQuote).toList());
      String script =
          quoted
              + " & child=$!; echo $child > "
              + shellQuote(pidFile.toString())
              + "; trap 'kill $child 2>/dev/null; wait $child; exit 0' TERM INT;"
              + " while kill -0 "
              + jvm
              + " 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done;"
              + " kill $child 2>/dev/null; wait $child";
      ProcessBuilder pb = new ProcessBuilder("setsid", "bash", "-c", script);
      pb.environment().putAll(environment);
      pb.redirectErrorStream(true);
      pb.redirectOutput(logFile.toFile());
      Process watchdog = pb.start();
      Awaitility.await(name + " to start")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      Files.deleteIfExists(pidFile);
      LocalProcess process = new LocalProcess(name, watchdog, pid, logFile);
      RUNNING.add(process);
      return process;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  /**
   * Ports this JVM hands out: {@code -Dbosun.ports=<first>-<last>}, 20000-31999 by default, below
   * the ephemeral range (32768+) where outgoing connections would collide with them. ./bosun test
   * builds the operator modules two at a time, and each module's tests get a range of their own
   * (the modules' poms): a member restarted on its port would otherwise find it taken by another
   * JVM that saw it free while the member was down.
   */
  private static final int[] PORTS = portRange(System.getProperty("bosun.ports", "20000-31999"));

  static int[] portRange(String range) {
    String[] bounds = range.trim().split("-");
    if (bounds.length != 2) {
      throw new IllegalArgumentException("bosun.ports must read <first>-<last>: " + range);
    }
    int first = Integer.parseInt(bounds[0].trim());
    int last = Integer.parseInt(bounds[1].trim());
    if (first < 1024 || last > 32767 || last - first < 1000) {
      throw new IllegalArgumentException(
          "bosun.ports must hold at least 1000 ports in 1024-32767: " + range);
    }
    return new int[] {first, last};
  }

  private static int randomPort() {
    return ThreadLocalRandom.current().nextInt(PORTS[0], PORTS[1] + 1);
  }

  /**
   * Ports this JVM handed out: never twice, because a port chosen for a server that is not
   * listening at the moment (an operator's restore route between a stop and a start) looks free and
   * was once given to the operator's health endpoint as well.
   */
  private static final java.util.Set<Integer> HANDED_OUT =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * A port of {@code bosun.ports} that no address of this machine has bound now: for a server that
   * binds the wildcard address (the operator's HTTP endpoint), which a port free only on 127.0.0.1
   * can still refuse when a test's etcd member or MariaDB listens on it at 127.0.x.y.
   */
  public static int freePortOnEveryAddress() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = randomPort();
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1)) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IllegalStateException("no port of bosun.ports free on every address");
  }

  /** A port of {@code bosun.ports} free on {@code loopbackHost} (a loopback address only). */
  public static int freePort(String loopbackHost) {
    try {
      InetAddress address = InetAddress.getByName(loopbackHost);
      if (!address.isLoopbackAddress()) {
        throw new IllegalArgumentException("tests bind only loopback addresses: " + loopbackHost);
      }
      for (int attempt = 0; attempt < 200; attempt++) {
        int port = randomPort();
        if (!HANDED_OUT.add(port)) {
          continue;
        }
        try (ServerSocket s = new ServerSocket(port, 1, address)) {
          s.setReuseAddress(true);
          return port;
        } catch (IOException busy) {
          // try another
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no free port of bosun.ports on " + loopbackHost);
  }

  /** Waits until the server accepts TCP connections; fails at once, with its log, if it died. */
  public LocalProcess awaitPort(String host, int port, Duration timeout) {
    Awaitility.await(name + " to listen on " + host + ":" + port)
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (!isAlive()) {
                throw new IllegalStateException(
                    name + " exited; its log ends with:\n" + logTail(30));
              }
              return accepts(host, port);
            });
    return this;
  }

  /** The server's process ID (not the watchdog's). */
  public long pid() {
    return pid;
  }

  /** The file the server's output goes to. */
  public Path log() {
    return log;
  }

  /** True while the server runs (a paused server is running). */
  public boolean isAlive() {
    return handle().map(ProcessHandle::isAlive).orElse(false) && watchdog.isAlive();
  }

  /** SIGKILL: the server dies at once, as in a crash or an OOM kill; waits until it is gone. */
  public void kill() {
    signal("CONT");
    signal("KILL");
    awaitExit(Duration.ofSeconds(30));
  }

  /** SIGTERM and a wait for a clean exit (SIGKILL after 30 s). */
  public void stop() {
    if (!isAlive()) {
      RUNNING.remove(this);
      return;
    }
    signal("CONT");
    signal("TERM");
    if (!awaitExit(Duration.ofSeconds(30))) {
      kill();
    }
  }

  /** SIGSTOP: the server hangs without closing its sockets, like a partitioned machine. */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT");
  }

  /** The last {@code lines} lines of the server's output. */
  public String logTail(int lines) {
    return tail(log, lines);
  }

  /**
   * The last {@code lines} lines of {@code file}, or why it cannot be read (for a failure text).
   */
  public static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name + "(pid " + pid + ")";
  }

  private boolean awaitExit(Duration timeout) {
    try {
      boolean gone = watchdog.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (gone) {
        RUNNING.remove(this);
      }
      return gone;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Optional<ProcessHandle> handle() {
    return ProcessHandle.of(pid);
  }

  private void signal(String signal) {
    if (!handle().map(ProcessHandle::isAlive).orElse(false)) {
      return;
    }
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot signal " + this, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean accepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String shellQuote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
