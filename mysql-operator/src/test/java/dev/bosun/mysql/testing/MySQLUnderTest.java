package dev.bosun.mysql.testing;

import dev.bosun.common.testing.RunningOperator;
import dev.bosun.mysql.Main;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.topology.Address;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MySQL operator as Main runs it, with pods addressed to real servers the test started on
 * 127.0.0.1 (a pod without a server answers nowhere: port 1).
 */
public final class MySQLUnderTest {

  private static final String[] CRDS = {
    "mysqlclusters.mysql.bosun.dev", "mysqlbackups.mysql.bosun.dev"
  };

  /** namespace/pod -> where its server answers. */
  public final Map<String, Address> servers = new ConcurrentHashMap<>();

  /** The operator's backup volume. */
  public final Path backupRoot = RunningOperator.tempDir("bosun-mysql-backups-");

  /** The operator, not yet started, with its HTTP port disabled. */
  public final RunningOperator operator =
      new RunningOperator(
          MySQLOperator.NAME,
          (settings, running) ->
              Main.create(
                  settings,
                  running.client,
                  (ns, cluster, pod, port) ->
                      servers.getOrDefault(ns + "/" + pod, new Address("127.0.0.1", 1)),
                  Duration.ofMillis(500),
                  backupRoot),
          CRDS);
}
