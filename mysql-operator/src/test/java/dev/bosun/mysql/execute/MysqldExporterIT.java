package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.InstallScript;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.objects.ExporterSidecar;
import dev.bosun.mysql.testing.MariaDbServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metrics sidecar's contract on real processes: the metrics user the operator keeps on a real
 * MariaDB server, and Debian's mysqld_exporter 0.14 started with the sidecar's own flags and DSN,
 * scraped over HTTP.
 */
class MysqldExporterIT {

  private static final String EXPORTER = "/usr/bin/prometheus-mysqld-exporter";
  private static final String PASSWORD = "metrics-secret-1";
  private final SqlDialect dialect = new MariaDbDialect();
  private final List<LocalProcess> exporters = new ArrayList<>();
  private final MetricsUsers users = new MetricsUsers(Duration.ofSeconds(5));
  private MariaDbServers fleet;

  @BeforeAll
  static void install() {
    // Debian's package, installed with the other workload binaries when missing.
    InstallScript.run("install-workloads.sh");
  }

  @AfterEach
  void stop() {
    exporters.forEach(LocalProcess::close);
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void theExporterScrapesItsServerAsTheMetricsUserWhichCannotWrite() throws Exception {
    MariaDbServers.Server server = serverWithMetricsUser("uid-1");
    // Done once per primary and password: a second round issues no statement, even to a server
    // that is gone.
    server.stop();
    users.ensure("uid-1", dialect, MariaDbServers.CREDENTIALS, server.address(), PASSWORD);
    server.start();

    String metrics = scrape(startExporter(server.address().port(), PASSWORD));

    assertThat(metrics)
        .contains("mysql_up 1")
        // Every default collector (replica status included) works with the user's few grants.
        .contains("mysql_exporter_last_scrape_error 0")
        .contains("mysql_global_variables_read_only 1")
        .containsPattern("(?m)^mysql_global_status_uptime [0-9]");
    InstanceClient asMetricsUser =
        new InstanceClient(
            server.address(),
            new Credentials(dialect.metricsUser(), PASSWORD, "none", "none"),
            Duration.ofSeconds(5),
            dialect.jdbcOptions());
    assertThat(asMetricsUser.query("SELECT 1 AS one", Duration.ofSeconds(5)))
        .containsExactly(Map.of("one", "1"));
    assertThatThrownBy(() -> asMetricsUser.execute("write", List.of("CREATE DATABASE nope")))
        .isInstanceOf(InstanceException.class);
  }

  @Test
  void aRotatedPasswordIsAppliedAndTheOldOneNoLongerScrapes() throws Exception {
    MariaDbServers.Server server = serverWithMetricsUser("uid-2");
    users.ensure("uid-2", dialect, MariaDbServers.CREDENTIALS, server.address(), "rotated-2");

    assertThat(scrape(startExporter(server.address().port(), "rotated-2"))).contains("mysql_up 1");
    assertThat(scrape(startExporter(server.address().port(), PASSWORD))).contains("mysql_up 0");
  }

  /** A started server on which the operator ensured the metrics user for cluster {@code uid}. */
  private MariaDbServers.Server serverWithMetricsUser(String uid) throws InstanceException {
    fleet = new MariaDbServers();
    MariaDbServers.Server server = fleet.create(uid, 1).start();
    users.ensure(uid, dialect, MariaDbServers.CREDENTIALS, server.address(), PASSWORD);
    return server;
  }

  /** The exporter as the sidecar runs it, on a free port; returns its metrics URL. */
  private URI startExporter(int serverPort, String password) throws Exception {
    int port = LocalProcess.freePort("127.0.0.1");
    List<String> command = new ArrayList<>(List.of(EXPORTER));
    command.addAll(ExporterSidecar.args("127.0.0.1:" + port));
    Path log = Files.createTempFile("mysqld-exporter-", ".log");
    LocalProcess exporter =
        LocalProcess.start(
            "mysqld-exporter",
            command,
            log,
            Map.of(
                "DATA_SOURCE_NAME",
                ExporterSidecar.dataSourceName(
                    dialect, password, dialect.metricsHost(), serverPort)));
    exporters.add(exporter);
    exporter.awaitPort("127.0.0.1", port, Duration.ofSeconds(20));
    return URI.create("http://127.0.0.1:" + port + "/metrics");
  }

  private static String scrape(URI url) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    return Awaitility.await("a scrape of " + url)
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () ->
                http.send(
                        HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body(),
            body -> body.contains("mysql_up "));
  }
}
