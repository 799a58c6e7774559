package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLBackupSpec;
import dev.bosun.mysql.v1alpha1.mysqlbackupspec.Storage;
import dev.bosun.mysql.v1alpha1.mysqlbackupspec.storage.S3;
import dev.bosun.mysql.v1alpha1.mysqlbackupspec.storage.s3.CredentialsSecret;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

/** A store the spec names wrongly is refused with the field and the rule, not a parser's text. */
class BackupStoresTest {

  private static MySQLBackup withEndpoint(String endpoint) {
    S3 s3 = new S3();
    s3.setEndpoint(endpoint);
    s3.setBucket("backups");
    CredentialsSecret secret = new CredentialsSecret();
    secret.setName("s3-creds");
    s3.setCredentialsSecret(secret);
    Storage storage = new Storage();
    storage.setS3(s3);
    MySQLBackupSpec spec = new MySQLBackupSpec();
    spec.setClusterName("db");
    spec.setStorage(storage);
    MySQLBackup b = new MySQLBackup();
    b.setMetadata(new ObjectMetaBuilder().withNamespace("shop").withName("nightly").build());
    b.setSpec(spec);
    return b;
  }

  @Test
  void anEndpointThatIsNoUrlIsNamedBeforeAnySecretIsRead() {
    // No client: the endpoint is checked before the credentials Secret is looked up.
    BackupStores stores = new BackupStores(null, null);
    assertThatThrownBy(() -> stores.open(withEndpoint("https://minio backup:9000")))
        .isInstanceOf(BackupStores.StoreException.class)
        .hasMessage("invalid S3 storage: endpoint https://minio backup:9000 is not a valid URL");
    assertThatThrownBy(() -> stores.open(withEndpoint(" ")))
        .isInstanceOf(BackupStores.StoreException.class)
        .hasMessage("invalid S3 storage: s3.endpoint is required");
  }
}
