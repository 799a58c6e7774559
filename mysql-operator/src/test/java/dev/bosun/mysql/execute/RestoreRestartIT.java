package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator that restarts at any point of a restore, on a real MariaDB: the status says the load
 * started and the new operator process knows no load. A load that finished is recorded as done
 * (never "interrupted"), one that never started is started, one that stopped part-way is reported
 * and never run again over what it wrote.
 */
class RestoreRestartIT {

  private MariaDbServers fleet;
  private final Map<String, Address> addresses = new LinkedHashMap<>();
  private final List<TopologyRecord> saved = new ArrayList<>();
  private final List<Address> started = new ArrayList<>();
  @TempDir Path dir;

  @BeforeEach
  void startAPrimary() throws Exception {
    fleet = new MariaDbServers();
    addresses.put("db-0", fleet.create("db-0", 100).start().address());
    AppClient.adminQuery(addresses.get("db-0"), "SET GLOBAL read_only=OFF");
  }

  @AfterEach
  void stop() {
    fleet.close();
  }

  /** One round of a freshly started operator process, with the load recorded as started. */
  private TopologyController.Tick roundAfterRestart() {
    TopologyController controller =
        new TopologyController(
            new MariaDbDialect(),
            MariaDbServers.CREDENTIALS,
            Duration.ofSeconds(3),
            Clock.systemUTC(),
            10);
    Restorer noLoadKnown =
        new Restorer() {
          @Override
          public boolean start(Address primary) {
            started.add(primary);
            return true;
          }

          @Override
          public Progress progress() {
            return started.isEmpty() ? null : new Progress(true, null, null);
          }

          @Override
          public void forget() {}
        };
    return controller.tick(
        new TopologyController.Desired(1, true, Duration.ofSeconds(30), null, 3_600_000),
        new TopologyRecord("db-0", null, null, null, TopologyRecord.RESTORE_LOADING, null),
        addresses,
        Set.of(),
        noLoadKnown,
        saved::add);
  }

  @Test
  void aLoadThatFinishedBeforeTheRestartIsRecordedAsDone() throws Exception {
    FileSystemBackupStore store = new FileSystemBackupStore(dir);
    String dump =
        "CREATE DATABASE shop;\nCREATE TABLE shop.t (id INT);\nINSERT INTO shop.t VALUES (1);\n";
    store.write("shop.sql", new ByteArrayInputStream(dump.getBytes(StandardCharsets.UTF_8)));
    new LogicalDump(new MariaDbDialect(), MariaDbServers.CREDENTIALS, Duration.ofSeconds(5))
        .load(store, "shop.sql", addresses.get("db-0"));

    TopologyController.Tick tick = roundAfterRestart();

    assertThat(tick.plan().step())
        .isEqualTo(new Step.RestoreDone("db-0", store.location("shop.sql")));
    assertThat(tick.record().restoredFrom()).isEqualTo(store.location("shop.sql"));
    // Stored at once, not only in the next status write.
    assertThat(saved).extracting(TopologyRecord::restoredFrom).contains(store.location("shop.sql"));
    assertThat(started).isEmpty();
  }

  @Test
  void aLoadRecordedButNeverStartedStartsIntoTheEmptyPrimary() {
    TopologyController.Tick tick = roundAfterRestart();

    assertThat(tick.plan().step()).isEqualTo(new Step.Restore("db-0"));
    assertThat(tick.error()).isNull();
    assertThat(started).containsExactly(addresses.get("db-0"));
    // "loading" was stored before the load was handed to a worker.
    assertThat(saved).extracting(TopologyRecord::restoredFrom).containsExactly("loading");
  }

  @Test
  void aLoadThatStoppedPartWayIsReportedAndNeverRunAgain() throws Exception {
    // What a load killed mid-way leaves: some of the dump's rows, no record that it finished.
    AppClient.adminQuery(addresses.get("db-0"), "CREATE DATABASE shop");
    AppClient.adminQuery(addresses.get("db-0"), "CREATE TABLE shop.t (id INT)");

    TopologyController.Tick tick = roundAfterRestart();

    assertThat(tick.plan().step()).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) tick.plan().step()).reason()).isEqualTo("RestoreInterrupted");
    assertThat(started).isEmpty();
  }
}
