package dev.bosun.mysql;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.mysql.topology.Address;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MySQL operator as Main runs it, on the shared control plane, with pods addressed to real
 * servers the test started on 127.0.0.1 (a pod without a server answers nowhere: port 1).
 */
public final class RunningOperator implements AutoCloseable {

  public static final String[] CRDS = {
    "mysqlclusters.mysql.bosun.dev", "mysqlbackups.mysql.bosun.dev"
  };

  public final WriteCounter writes = new WriteCounter();
  public final KubernetesClient client =
      ControlPlaneExtension.controlPlane()
          .adminClient(b -> b.addOrReplaceInterceptor("writes", writes));

  /** namespace/pod -> where its server answers. */
  public final Map<String, Address> servers = new ConcurrentHashMap<>();

  /** The operator's backup volume. */
  public final Path backupRoot;

  private OperatorRuntime runtime;

  public RunningOperator() {
    Crds.install(client, CRDS);
    try {
      backupRoot = Files.createTempDirectory("bosun-mysql-backups-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public RunningOperator start() {
    runtime =
        Main.create(
                OperatorSettings.local(MySQLOperator.NAME).withHttpPort(-1),
                client,
                (ns, cluster, pod, port) ->
                    servers.getOrDefault(ns + "/" + pod, new Address("127.0.0.1", 1)),
                Duration.ofMillis(500),
                backupRoot)
            .start();
    return this;
  }

  @Override
  public void close() {
    if (runtime != null) {
      runtime.close();
    }
    client.close();
  }
}
