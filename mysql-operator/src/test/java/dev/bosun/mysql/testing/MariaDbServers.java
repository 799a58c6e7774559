package dev.bosun.mysql.testing;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.ScratchDirectories;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.plan.Address;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Real MariaDB servers on 127.0.0.1 playing a cluster's member pods: one initialised data directory
 * per JVM, copied per instance (a copy takes ~70 ms, an init ~0.7 s).
 */
public final class MariaDbServers implements AutoCloseable {

  /**
   * MariaDB 10.11.19's last lines at start with a corrupt redo log header (tried here): what a
   * kubelet puts in the termination message of such a server's container.
   */
  public static final String CORRUPT_REDO_LOG_TAIL =
      "[ERROR] InnoDB: Invalid log header checksum\n"
          + "[ERROR] InnoDB: Plugin initialization aborted with error Data structure corruption\n"
          + "[ERROR] Plugin 'InnoDB' registration as a STORAGE ENGINE failed.\n"
          + "[ERROR] Unknown/unsupported storage engine: InnoDB\n[ERROR] Aborting";

  public static final Credentials CREDENTIALS =
      new Credentials("bosun_operator", "op-secret-1", "bosun_repl", "repl-secret-1");
  public static final String ROOT_PASSWORD = "root-secret-1";
  private static final String HOST = "127.0.0.1";
  private static Path template;

  private final Path root;
  private final List<Server> servers = new ArrayList<>();

  /** One real server: its own data directory, configuration, port and process. */
  public static final class Server {
    private final String name;
    private final Path dir;
    private final String host;
    private final int port;
    private final java.util.function.UnaryOperator<List<String>> wrap;
    private LocalProcess process;

    Server(
        String name,
        Path dir,
        String host,
        int port,
        java.util.function.UnaryOperator<List<String>> wrap) {
      this.name = name;
      this.dir = dir;
      this.host = host;
      this.port = port;
      this.wrap = wrap;
    }

    public String name() {
      return name;
    }

    public Address address() {
      return new Address(host, port);
    }

    /** The server's process id (drills pause it with SIGSTOP). */
    public long pid() {
      return process.pid();
    }

    /** Starts (or restarts) the server on its data directory and waits until it accepts. */
    public Server start() {
      process =
          LocalProcess.start(
              name,
              wrap.apply(List.of("mariadbd", "--defaults-file=" + dir.resolve("my.cnf"))),
              dir.resolve("process.log"));
      process.awaitPort(host, port, Duration.ofSeconds(60));
      return this;
    }

    /** The last {@code lines} lines of the server's error log (InnoDB's recovery reports there). */
    public String errorLogTail(int lines) {
      return LocalProcess.tail(dir.resolve("error.log"), lines);
    }

    /** SIGKILL, like a node dying. */
    public void kill() {
      if (process != null) {
        process.kill();
      }
    }

    public void stop() {
      if (process != null && process.isAlive()) {
        process.stop();
      }
    }

    public boolean isAlive() {
      return process != null && process.isAlive();
    }

    public void pause() {
      process.pause();
    }

    public void resume() {
      process.resume();
    }
  }

  /** A fleet rooted in a fresh temporary directory. */
  public MariaDbServers() {
    try {
      root = Files.createTempDirectory("bosun-mariadb-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates (not starts) a server named {@code name} with the given server id. */
  public Server create(String name, int serverId) {
    return create(name, serverId, HOST, LocalProcess.freePort(HOST), c -> c);
  }

  /**
   * Creates (not starts) a server listening on {@code host:port}, started through {@code wrap}
   * (e.g. a drill's test host: {@code ip netns exec ...}).
   */
  public Server create(
      String name,
      int serverId,
      String host,
      int port,
      java.util.function.UnaryOperator<List<String>> wrap) {
    try {
      Path dir = root.resolve(name);
      Files.createDirectories(dir);
      copyTree(template(), dir.resolve("data"));
      Files.writeString(dir.resolve("my.cnf"), cnf(dir, serverId, host, port));
      Server s = new Server(name, dir, host, port, wrap);
      servers.add(s);
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String cnf(Path dir, int serverId, int port) {
    return cnf(dir, serverId, HOST, port);
  }

  private static String cnf(Path dir, int serverId, String host, int port) {
    StringBuilder sb = new StringBuilder("[mysqld]\n");
    // log-basename first: it overrides the log settings set before it.
    sb.append("log-basename=node\n");
    sb.append("user=").append(System.getProperty("user.name")).append('\n');
    sb.append("datadir=").append(dir.resolve("data")).append('\n');
    sb.append("socket=").append(dir.resolve("mysqld.sock")).append('\n');
    sb.append("pid-file=").append(dir.resolve("mysqld.pid")).append('\n');
    sb.append("log-error=").append(dir.resolve("error.log")).append('\n');
    sb.append("bind-address=").append(host).append('\n');
    for (String line : new MariaDbDialect().baseConfig(serverId, port)) {
      sb.append(line).append('\n');
    }
    // The servers keep the durability settings every member Pod gets (baseConfig): no
    // innodb-buffer-pool-size and no sync-binlog of their own. With sync-binlog=0, MariaDB
    // 10.11.19's crash recovery corrupted InnoDB after a SIGKILL under write load in 7 of 1,440
    // kill/restart rounds, against 1 of 1,300 with sync-binlog=1 (hack/mariadb-crash-recovery.sh;
    // the module README, "Crash recovery of the server itself").
    sb.append("performance-schema=OFF\n");
    sb.append("[client]\nsocket=").append(dir.resolve("mysqld.sock")).append('\n');
    return sb.toString();
  }

  private synchronized Path template() throws IOException {
    if (template != null) {
      return template;
    }
    Path t = Files.createTempDirectory("bosun-mariadb-template-");
    // One template per test JVM, copied into every server's data directory; gone with the JVM.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> ScratchDirectories.deleteQuietly(t)));
    Path data = t.resolve("data");
    Files.createDirectories(data);
    Files.writeString(t.resolve("my.cnf"), cnf(t, 1, 1));
    Path users = t.resolve("users.sql");
    Files.writeString(
        users,
        String.join(
                ";\n",
                new MariaDbDialect()
                    .bootstrapUsers(
                        ROOT_PASSWORD,
                        CREDENTIALS.replicationPassword(),
                        CREDENTIALS.operatorPassword()))
            + ";\n");
    Process p =
        new ProcessBuilder(
                "mariadb-install-db",
                "--defaults-file=" + t.resolve("my.cnf"),
                "--auth-root-authentication-method=socket",
                "--skip-test-db",
                "--extra-file=" + users)
            .redirectErrorStream(true)
            .redirectOutput(t.resolve("install.log").toFile())
            .start();
    try {
      if (p.waitFor() != 0) {
        throw new IllegalStateException(
            "mariadb-install-db failed: " + Files.readString(t.resolve("install.log")));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    template = data;
    return data;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /**
   * Kills {@code s} and gives it a freshly initialised data directory, as when a node's disk was
   * lost and the pod came back on an empty volume; not started.
   */
  public void loseData(Server s) {
    s.kill();
    try {
      Path data = s.dir.resolve("data");
      try (Stream<Path> walk = Files.walk(data)) {
        walk.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
      }
      copyTree(template(), data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Kills {@code s} and leaves its relay log index unreadable, as a crash mid-write can: the server
   * then refuses every CHANGE MASTER with 1201 until its replication settings are reset. Not
   * started.
   */
  public void garbleReplicationSettings(Server s) {
    s.kill();
    try (Stream<Path> files = Files.list(s.dir.resolve("data"))) {
      List<Path> infos =
          files.filter(f -> f.getFileName().toString().endsWith("relay-log.info")).toList();
      if (infos.isEmpty()) {
        throw new IllegalStateException(s.name() + " has no relay log info file to garble");
      }
      for (Path info : infos) {
        Files.write(info, new byte[] {'x', 0, 1});
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills every server and removes the directories. */
  @Override
  public void close() {
    for (Server s : servers) {
      s.kill();
    }
    ScratchDirectories.delete(root);
  }
}
