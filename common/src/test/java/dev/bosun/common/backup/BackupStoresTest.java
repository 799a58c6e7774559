package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One mapping of spec.store for every backup kind: where keys go, and what is refused. */
class BackupStoresTest {

  private static final BackupStores NO_CLIENT =
      new BackupStores(null, Optional.empty(), "chart value backup.volume");

  private static String prefix(BackupStoreSpec spec) throws BackupStoreException {
    return BackupStores.prefix("team-a", "demo", "nightly", spec);
  }

  private static BackupStoreSpec s3(String prefix) {
    return BackupStoreSpec.s3("https://s3.example.com", "backups", prefix, "s3-creds");
  }

  private static ConfigMap backup() {
    ConfigMap b = new ConfigMap();
    b.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace("team-a").build());
    return b;
  }

  @Test
  void theDefaultPrefixIsTheNamespaceAndCluster() throws Exception {
    assertThat(prefix(BackupStoreSpec.volume(null))).isEqualTo("team-a/demo/nightly/");
    assertThat(prefix(s3(null))).isEqualTo("team-a/demo/nightly/");
  }

  @Test
  void aPrefixOutsideTheNamespaceIsPutBelowIt() throws Exception {
    assertThat(prefix(BackupStoreSpec.volume("team-b/demo")))
        .isEqualTo("team-a/team-b/demo/nightly/");
    assertThat(prefix(s3("/team-b/"))).isEqualTo("team-a/team-b/nightly/");
    // A namespace whose name merely starts the same is another namespace.
    assertThat(prefix(s3("team-ab/x"))).isEqualTo("team-a/team-ab/x/nightly/");
    assertThat(prefix(s3("team-a/x"))).isEqualTo("team-a/x/nightly/");
    assertThat(prefix(s3("team-a"))).isEqualTo("team-a/nightly/");
  }

  @Test
  void aPrefixClimbingOutIsAnInvalidSpecNamingTheField() {
    assertThatThrownBy(() -> prefix(s3("team-a/../team-b")))
        .isInstanceOf(BackupStoreException.class)
        .hasMessageStartingWith("store.s3.prefix: ")
        .hasMessageContaining("..")
        .satisfies(e -> assertThat(((BackupStoreException) e).invalidSpec()).isTrue());
  }

  @Test
  void exactlyOneStoreIsTaken() {
    assertThatThrownBy(() -> prefix(new BackupStoreSpec(null, null)))
        .hasMessage("store takes exactly one of volume or s3");
    assertThatThrownBy(
            () -> prefix(new BackupStoreSpec(new BackupStoreSpec.Volume(null), s3(null).s3())))
        .hasMessage("store takes exactly one of volume or s3");
  }

  @Test
  void anEndpointThatIsNoUrlIsNamedBeforeAnySecretIsRead() {
    // No client: the endpoint is checked before the credentials Secret is looked up.
    assertThatThrownBy(
            () ->
                NO_CLIENT.open(
                    backup(),
                    "demo",
                    BackupStoreSpec.s3("https://minio backup:9000", "backups", null, "c")))
        .isInstanceOf(BackupStoreException.class)
        .hasMessage("store.s3.endpoint https://minio backup:9000 is not a valid URL");
    assertThatThrownBy(
            () -> NO_CLIENT.open(backup(), "demo", BackupStoreSpec.s3(" ", "backups", null, "c")))
        .hasMessage("store.s3.endpoint is required");
  }

  @Test
  void aVolumeStoreNeedsTheOperatorsVolume() {
    assertThatThrownBy(() -> NO_CLIENT.open(backup(), "demo", BackupStoreSpec.volume(null)))
        .isInstanceOf(BackupStoreException.class)
        .hasMessage(
            "store.volume needs the operator's backup volume (chart value backup.volume); use"
                + " store.s3 otherwise");
  }

  @Test
  void aVolumeStoreIsTheWholeVolumeWithTheBackupsPrefix() throws Exception {
    BackupTarget target =
        new BackupStores(null, Optional.of(Path.of("/backups")), "x")
            .open(backup(), "demo", BackupStoreSpec.volume("orders"));
    assertThat(target.prefix()).isEqualTo("team-a/orders/nightly/");
    assertThat(target.store().location("team-a/orders/nightly/1.db"))
        .isEqualTo("file:/backups/team-a/orders/nightly/1.db");
  }

  @Test
  void aSpecMistakeWaitsForTheSpecAMissingSecretIsRetried() {
    BackupStoreException spec = new BackupStoreException(BackupStoreException.INVALID_SPEC, "x");
    BackupStoreException secret =
        new BackupStoreException(BackupStoreException.STORE_UNAVAILABLE, "Secret s is missing");
    assertThat(spec.conditionMessage()).isEqualTo("invalid spec: x");
    assertThat(spec.retryAfter()).isNull();
    assertThat(secret.conditionMessage()).isEqualTo("Secret s is missing");
    assertThat(secret.retryAfter()).isEqualTo(java.time.Duration.ofSeconds(30));
  }

  @Test
  void theAdmissionWebhookHearsEveryMistakeOpenWouldReportWithoutAnyRead() {
    // No client: nothing is read to find these.
    assertThat(NO_CLIENT.problem(backup(), "demo", BackupStoreSpec.volume(null)))
        .hasValue(
            "store.volume needs the operator's backup volume (chart value backup.volume); use"
                + " store.s3 otherwise");
    assertThat(NO_CLIENT.problem(backup(), "demo", new BackupStoreSpec(null, null)))
        .hasValue("store takes exactly one of volume or s3");
    assertThat(
            NO_CLIENT.problem(
                backup(), "demo", BackupStoreSpec.s3("http://s3_store", "backups", null, "c")))
        .hasValue("store.s3: an S3 endpoint needs a scheme and a host: http://s3_store");
    assertThat(NO_CLIENT.problem(backup(), "demo", s3("orders"))).isEmpty();
  }
}
