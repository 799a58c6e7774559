package dev.bosun.mysql.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.InstanceException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checked dumps: prepared once per restore, refused by line, gone when forgotten or closed. */
class CheckedDumpsTest {

  @TempDir Path dir;

  private final CheckedDumps dumps = new CheckedDumps();

  @AfterEach
  void close() throws Exception {
    dumps.close();
  }

  private FileSystemBackupStore store(String dump) throws Exception {
    FileSystemBackupStore store = new FileSystemBackupStore(dir);
    store.write("ns/d/1.sql", new ByteArrayInputStream(dump.getBytes(StandardCharsets.UTF_8)));
    return store;
  }

  @Test
  void aDumpIsCheckedOnceAndEndsWithTheRecordOfItsLoad() throws Exception {
    FileSystemBackupStore store = store("CREATE DATABASE a;\nSET GLOBAL gtid_slave_pos='0-1-5';\n");
    Path first = dumps.prepare("ns/db/u1", store, "ns/d/1.sql", new MariaDbDialect());
    Files.delete(dir.resolve("ns/d/1.sql"));
    // Not read again: the store's copy may be gone or changed; the checked one is served.
    assertThat(dumps.prepare("ns/db/u1", store, "ns/d/1.sql", new MariaDbDialect()))
        .isEqualTo(first);
    String text = Files.readString(first);
    assertThat(text)
        .startsWith("CREATE DATABASE a;\n")
        .doesNotContain("gtid_slave_pos")
        .contains(store.location("ns/d/1.sql"));
    dumps.forget("ns/db/u1");
    assertThat(first).doesNotExist();
  }

  @Test
  void closingDeletesTheDumpsKeptAndTheirDirectory() throws Exception {
    FileSystemBackupStore store = store("CREATE DATABASE a;\n");
    Path kept = dumps.prepare("ns/db/u1", store, "ns/d/1.sql", new MariaDbDialect());
    dumps.close();
    assertThat(kept).doesNotExist();
    assertThat(kept.getParent()).doesNotExist();
  }

  @Test
  void aDumpHoldingACommandIsRefusedByLineAndNothingIsKept() throws Exception {
    FileSystemBackupStore store = store("CREATE DATABASE a;\nsystem touch /tmp/x\n");
    assertThatThrownBy(() -> dumps.prepare("ns/db/u1", store, "ns/d/1.sql", new MariaDbDialect()))
        .isInstanceOf(InstanceException.class)
        .hasMessageContaining("line 2 of the dump holds a client command")
        .hasMessageNotContaining("touch");
  }
}
