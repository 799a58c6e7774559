package dev.bosun.crds;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * EtcdBackup and MySQLBackup are one backup API: the same spec fields with the same types and
 * rules, the same shared status records and printer columns (the operators map both with common's
 * BackupStoreSpec and BackupRecord, which only works while the shapes agree).
 */
class BackupApiTest {

  private static final List<String> SHARED_STATUS =
      List.of(
          "observedGeneration",
          "lastBackup",
          "backups",
          "backupCount",
          "nextScheduleTime",
          "inProgress",
          "conditions");

  private static final CustomResourceDefinition ETCD =
      load("etcd.bosun.dev/etcdbackups.etcd.bosun.dev-v1.yml");
  private static final CustomResourceDefinition MYSQL =
      load("mysql.bosun.dev/mysqlbackups.mysql.bosun.dev-v1.yml");

  private static CustomResourceDefinition load(String file) {
    try {
      return CrdConventionsTest.load(Path.of(System.getProperty("user.dir")).resolve(file));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JSONSchemaProps part(CustomResourceDefinition crd, String part) {
    return crd.getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema()
        .getProperties()
        .get(part);
  }

  /** A schema as a map without descriptions: wording may differ, types and rules may not. */
  @SuppressWarnings("unchecked")
  private static Object shape(Object schema) {
    Object tree = Serialization.jsonMapper().convertValue(schema, Object.class);
    if (tree instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach(
          (k, v) -> {
            if (!"description".equals(k)) {
              out.put((String) k, shape(v));
            }
          });
      return out;
    }
    if (tree instanceof List<?> list) {
      return list.stream().map(BackupApiTest::shape).toList();
    }
    return tree;
  }

  @Test
  void theSpecIsTheSame() {
    assertThat(shape(part(MYSQL, "spec").getProperties()))
        .isEqualTo(shape(part(ETCD, "spec").getProperties()));
    assertThat(part(MYSQL, "spec").getRequired()).isEqualTo(part(ETCD, "spec").getRequired());
  }

  @Test
  void theSharedStatusIsTheSame() {
    for (String field : SHARED_STATUS) {
      assertThat(shape(part(MYSQL, "status").getProperties().get(field)))
          .as(field)
          .isEqualTo(shape(part(ETCD, "status").getProperties().get(field)))
          .isNotNull();
    }
  }

  @Test
  void aBackupInProgressIsDescribedAlikeFieldByField() {
    JSONSchemaProps mysql = part(MYSQL, "status").getProperties().get("inProgress");
    assertThat(mysql).isEqualTo(part(ETCD, "status").getProperties().get("inProgress"));
    assertThat(mysql.getDescription()).isNotBlank();
    assertThat(mysql.getProperties())
        .containsOnlyKeys("startedAt", "key", "bytes")
        .allSatisfy((name, field) -> assertThat(field.getDescription()).as(name).isNotBlank());
  }

  @Test
  void thePrinterColumnsAreTheSame() {
    assertThat(shape(MYSQL.getSpec().getVersions().get(0).getAdditionalPrinterColumns()))
        .isEqualTo(shape(ETCD.getSpec().getVersions().get(0).getAdditionalPrinterColumns()));
  }

  @Test
  void bothClusterKindsStartFromABackupUnderBootstrap() {
    JSONSchemaProps etcd =
        part(load("etcd.bosun.dev/etcdclusters.etcd.bosun.dev-v1.yml"), "spec")
            .getProperties()
            .get("bootstrap")
            .getProperties()
            .get("fromBackup");
    JSONSchemaProps mysql =
        part(load("mysql.bosun.dev/mysqlclusters.mysql.bosun.dev-v1.yml"), "spec")
            .getProperties()
            .get("bootstrap")
            .getProperties()
            .get("fromBackup");
    assertThat(mysql.getRequired()).isEqualTo(etcd.getRequired()).containsExactly("backupName");
    assertThat(shape(mysql.getProperties().get("backupName")))
        .isEqualTo(shape(etcd.getProperties().get("backupName")));
  }
}
