package dev.bosun.mysql.testing;

import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.tls.ServiceDnsNames;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.mysql.Main;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.plan.Address;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  /**
   * The restore route as the chart configures it, reached here as {@code localhost} (restore Jobs
   * run on this machine); one port for this operator's life, so a Job made before a restart fetches
   * from the operator after it.
   */
  public final RestoreEndpoint restore = restoreEndpoint(LocalProcess.freePortOnEveryAddress());

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
                  backupRoot,
                  Optional.of(restore),
                  WebhookSettings.fromEnvironment(System.getenv()),
                  OPERATOR_IMAGE),
          CRDS);

  /** The image restore Jobs fetch with (the fetch main runs from this JVM's classpath here). */
  public static final String OPERATOR_IMAGE = "bosun/mysql-operator:test";

  /** Where the operator keeps its certificate: a namespace every API server has. */
  public static final String OPERATOR_NAMESPACE = "default";

  /** The certificate Secret, as the chart names it for a release "bosun". */
  public static final String TLS_SECRET = "bosun-mysql-operator-tls";

  /** The restore Service, as the chart names it for a release "bosun". */
  public static final String RESTORE_SERVICE = "bosun-mysql-operator-restore";

  private static RestoreEndpoint restoreEndpoint(int port) {
    List<String> names = new ArrayList<>(ServiceDnsNames.of(RESTORE_SERVICE, OPERATOR_NAMESPACE));
    names.add("localhost");
    return new RestoreEndpoint(
        URI.create("https://localhost:" + port), port, OPERATOR_NAMESPACE, TLS_SECRET, names);
  }
}
