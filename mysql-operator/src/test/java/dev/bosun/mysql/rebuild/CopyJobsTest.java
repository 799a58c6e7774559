package dev.bosun.mysql.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.objects.ClusterObjectsTest;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.RunOnceJobAssert;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rebuild copy Job's shape, its Secret, and how its main reads what the Job gives it. */
class CopyJobsTest {

  private static final MySQLCluster CLUSTER = ClusterObjectsTest.cluster(new MySQLClusterSpec());

  static {
    CLUSTER.getMetadata().setUid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  }

  private static final Credentials ACCOUNT =
      new Credentials("bosun_operator", " s3cret\"with quote ", "repl", "r");

  private static Job job() {
    return CopyJobs.desired(
        CLUSTER,
        new CopyJobs.Spec(
            "bosun/mysql-operator:0.1.0",
            "db-2",
            new Address("db-2.db.shop.svc", 3306),
            new Address("db-1.db.shop.svc", 3306),
            Flavour.MARIADB,
            Duration.ofSeconds(3)));
  }

  @Test
  void theCopyRunsInTheClustersNamespaceWithNoPrivilegeAndNoToken() {
    Job job = job();
    RunOnceJobAssert.assertRunsOnceUnprivileged(job, "shop", CopyJobs.REBUILD_OF);
    assertThat(job.getMetadata().getName()).isEqualTo("db-rebuild-0f1e2d3c");
    assertThat(job.getMetadata().getAnnotations())
        .containsEntry(CopyMember.MEMBER_ANNOTATION, "db-2");
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers()).isEmpty();
    var c = pod.getContainers().get(0);
    assertThat(c.getCommand()).containsSubsequence("java", CopyMember.class.getName());
    // The password is in no command line and no environment variable: only in the mounted Secret.
    assertThat(String.join(" ", c.getCommand())).doesNotContain("s3cret");
    assertThat(c.getEnv()).noneMatch(e -> e.getValueFrom() != null);
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getSecret() != null)
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.getSecret().getSecretName()).isEqualTo("db-rebuild");
              assertThat(v.getSecret().getDefaultMode()).isEqualTo(0440);
            });
  }

  @Test
  void theMainReadsTheMembersAndTheAccountAsTheJobGivesThem(@TempDir Path dir) throws Exception {
    Secret secret = CopyJobs.secret(CLUSTER, ACCOUNT);
    assertThat(secret.getMetadata().getName()).isEqualTo(CopyJobs.secretName(CLUSTER));
    assertThat(secret.getMetadata().getOwnerReferences()).hasSize(1);
    for (var e : secret.getData().entrySet()) {
      Files.write(dir.resolve(e.getKey()), Base64.getDecoder().decode(e.getValue()));
    }
    assertThat(Files.readString(dir.resolve(CopyJobs.PASSWORD_KEY), StandardCharsets.UTF_8))
        .as("the password exactly, spaces and quotes included")
        .isEqualTo(ACCOUNT.operatorPassword());
    Map<String, String> env =
        job().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
            .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    assertThat(CopyMember.address(env.get(CopyMember.TARGET)))
        .isEqualTo(new Address("db-2.db.shop.svc", 3306));
    assertThat(CopyMember.address(env.get(CopyMember.SOURCE)))
        .isEqualTo(new Address("db-1.db.shop.svc", 3306));
    assertThat(Flavour.valueOf(env.get(CopyMember.FLAVOUR))).isEqualTo(Flavour.MARIADB);
    assertThat(env.get(CopyMember.SQL_TIMEOUT_SECONDS)).isEqualTo("3");
  }

  @Test
  void anAddressWithoutAPortIsRefused() {
    assertThatThrownBy(() -> CopyMember.address("db-2.db.shop.svc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host:port");
    assertThatThrownBy(() -> CopyMember.address("db-2:"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(CopyMember.address("[::1]:3306").port()).isEqualTo(3306);
  }

  @Test
  void theJobNameFitsALabelValueForALongClusterName() {
    MySQLCluster longName = ClusterObjectsTest.cluster(new MySQLClusterSpec());
    longName.getMetadata().setName("a".repeat(63));
    longName.getMetadata().setUid("12345678-aaaa-bbbb-cccc-dddddddddddd");
    assertThat(CopyJobs.name(longName)).hasSizeLessThanOrEqualTo(63).endsWith("-rebuild-12345678");
  }
}
