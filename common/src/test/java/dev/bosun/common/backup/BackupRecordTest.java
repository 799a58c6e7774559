package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The shared status and spec types read and write the JSON the CRDs describe. */
class BackupRecordTest {

  @Test
  void aRecordIsWrittenWithAnRfc3339TimeAndReadBack() {
    BackupRecord r =
        BackupRecord.of(
            new StoredObject("ns/c/b/1.db", 42, Instant.EPOCH, "file:/b/ns/c/b/1.db"),
            Instant.parse("2026-11-24T02:00:00.5Z"));

    String json = Serialization.asJson(r);

    assertThat(json).contains("\"time\":\"2026-11-24T02:00:00Z\"").contains("\"size\":42");
    assertThat(Serialization.unmarshal(json, BackupRecord.class)).isEqualTo(r);
  }

  @Test
  void aBackupInProgressIsWrittenWithAnRfc3339StartAndReadBack() {
    BackupProgress p =
        BackupProgress.of(Instant.parse("2026-11-24T02:00:00.5Z"), "ns/c/b/1.sql", 4096);

    String json = Serialization.asJson(p);

    assertThat(json)
        .isEqualTo(
            "{\"startedAt\":\"2026-11-24T02:00:00Z\",\"key\":\"ns/c/b/1.sql\",\"bytes\":4096}");
    assertThat(Serialization.unmarshal(json, BackupProgress.class)).isEqualTo(p);
  }

  @Test
  void aStoreSpecLeavesOutWhatIsUnsetAndReadsTheCrdShape() {
    assertThat(Serialization.asJson(BackupStoreSpec.volume(null))).isEqualTo("{\"volume\":{}}");
    BackupStoreSpec s3 =
        Serialization.unmarshal(
            "{\"s3\":{\"endpoint\":\"https://s3.example.com\",\"bucket\":\"b\","
                + "\"credentialsSecret\":{\"name\":\"creds\"}}}",
            BackupStoreSpec.class);
    assertThat(s3.volume()).isNull();
    assertThat(s3.s3().credentialsSecret().name()).isEqualTo("creds");
    assertThat(s3.s3().pathStyle()).isNull();
  }
}
