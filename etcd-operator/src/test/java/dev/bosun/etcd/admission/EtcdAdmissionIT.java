package dev.bosun.etcd.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.AdmissionContract;
import dev.bosun.common.testing.AdmissionUnderTest.Applied;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.tls.TrustedCa;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.Main;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The etcd operator's admission webhook on the real API server (1.20, which ignores the CRDs' CEL
 * rules): kubectl apply of each bad EtcdCluster and EtcdBackup in the table is refused naming the
 * field, good ones are stored, a version change is judged against the running status, with the
 * webhook down creates fail closed while a change, the operator's status write (InvalidSpec, the
 * backstop) and deletes pass, and the operator as Main builds it serves its webhook and restore
 * route with one certificate.
 *
 * <p>The webhook is the operator's own ({@link Main#serveAdmission}) on this JVM, behind the
 * chart's own configuration ({@link AdmissionContract}).
 */
class EtcdAdmissionIT extends AdmissionContract {

  private static final String NS = "etcd-admission";
  private static final String API = "etcd.bosun.dev/v1alpha1";
  private static final String CLUSTER = "EtcdCluster";
  private static final String S3 =
      "{s3: {endpoint: 'http://s3.example', bucket: snaps, credentialsSecret: {name: s3}}}";

  EtcdAdmissionIT() {
    super(NS, API, EtcdUnderTest.CRDS);
  }

  @Override
  protected AdmissionWebhook serve(WebhookSettings settings) {
    // No backup volume: store.volume is refused, as by an operator deployed without one.
    return Main.serveAdmission(client, settings, Optional.empty());
  }

  static Stream<Arguments> badObjects() {
    return Stream.of(
        // The CRDs' CEL rules, which this API server does not run. (A store with both or neither
        // of volume and s3 needs no row: its min/maxProperties hold it on 1.20 too.)
        Arguments.of(
            "a server certificate without the operator's",
            CLUSTER,
            "tls",
            "version: 3.5.17\ntls: {serverSecretName: server}",
            "tls.serverSecretName and tls.operatorSecretName go together"),
        Arguments.of(
            "metrics on the client port",
            CLUSTER,
            "metrics-on",
            "version: 3.5.17\nmetrics: {enabled: true, port: 2379}",
            "metrics.port 2379"),
        Arguments.of(
            "a disabled metrics endpoint on the peer port",
            CLUSTER,
            "metrics-off",
            "version: 3.5.17\nmetrics: {port: 2380}",
            "metrics.port 2380"),
        // The checks the reconcilers report as InvalidSpec.
        Arguments.of(
            "a version the operator does not run",
            CLUSTER,
            "old",
            "version: 3.3.9",
            "version 3.3.9 is not supported"),
        Arguments.of("a name with a dot", CLUSTER, "etcd.one", "version: 3.5.17", "metadata.name"),
        Arguments.of(
            "a duration for revision compaction",
            CLUSTER,
            "compaction",
            "version: 3.5.17\nmaintenance: {compaction: {mode: Revision, retention: 1h}}",
            "maintenance.compaction.retention"),
        Arguments.of(
            "a defragmentation schedule that does not parse",
            CLUSTER,
            "defrag",
            "version: 3.5.17\nmaintenance: {defragmentation: {schedule: '61 * * * *'}}",
            "maintenance.defragmentation.schedule"),
        Arguments.of(
            "a backup schedule that does not parse",
            "EtcdBackup",
            "bad-cron",
            "clusterName: main\nschedule: '61 * * * *'\nstore: " + S3,
            "schedule: "),
        Arguments.of(
            "a volume the operator does not have",
            "EtcdBackup",
            "no-volume",
            "clusterName: main\nstore: {volume: {}}",
            "store.volume needs the operator's backup volume"));
  }

  @Order(2)
  @Test
  void aGoodBackupIsStored() throws Exception {
    Applied applied =
        admission.apply(
            API, "EtcdBackup", "nightly", "clusterName: main\nschedule: '@daily'\nstore: " + S3);
    assertThat(applied.exitCode()).as(applied.output()).isZero();
  }

  @Order(2)
  @Test
  void aGoodClusterIsStoredAndAVersionChangeIsJudgedAgainstTheRunningStatus() throws Exception {
    Applied good = admission.apply(API, CLUSTER, "good", "version: 3.5.17");
    assertThat(good.exitCode()).as(good.output()).isZero();
    EtcdCluster stored = client.resources(EtcdCluster.class).inNamespace(NS).withName("good").get();
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setVersion("3.5.17");
    stored.setStatus(status);
    client.resources(EtcdCluster.class).inNamespace(NS).resource(stored).updateStatus();

    Applied downgrade = admission.apply(API, CLUSTER, "good", "version: 3.4.37");
    assertThat(downgrade.exitCode()).as(downgrade.output()).isNotZero();
    assertThat(downgrade.output())
        .contains("admission webhook \"updates.etcdclusters.etcd.bosun.dev\" denied the request")
        .contains("invalid spec: version 3.4.37 is older than 3.5.17");

    Applied patch = admission.apply(API, CLUSTER, "good", "version: 3.5.21");
    assertThat(patch.exitCode()).as(patch.output()).isZero();
  }

  @Order(3)
  @Test
  void withTheWebhookDownCreatesFailClosedWhileChangesStatusWritesAndDeletesPass()
      throws Exception {
    assertThat(admission.apply(API, CLUSTER, "kept", "version: 3.5.17").exitCode()).isZero();
    admission.stopWebhook();

    admission.assertCreateFailsClosed(API, CLUSTER, "unseen", "version: 3.5.17");

    // Updates fail open: the bad change is stored, and the operator reports it in status (a write
    // to the status subresource, which no rule matches).
    Applied change = admission.apply(API, CLUSTER, "kept", "version: 3.3.9");
    assertThat(change.exitCode()).as(change.output()).isZero();
    try (RunningOperator operator = EtcdUnderTest.operator().start()) {
      admission.awaitInvalidSpec(API, CLUSTER, "kept", "version 3.3.9 is not supported");
    }

    admission.assertDeletedThroughAFinalizer(API, CLUSTER, "kept");
  }

  @Order(4)
  @Test
  void theOperatorServesItsWebhookAndRestoreRouteWithOneCertificate() throws Exception {
    int restorePort = LocalProcess.freePort("127.0.0.1");
    var webhook = admission.settings();
    // As the chart sets them: one Secret, which the webhook's settings name too.
    RestoreEndpoint restore =
        new RestoreEndpoint(
            URI.create("https://localhost:" + restorePort),
            restorePort,
            webhook.namespace(),
            webhook.tlsSecret(),
            List.of("localhost", "restore.example"));
    try (OperatorRuntime runtime =
        Main.create(
                OperatorSettings.local(EtcdOperator.NAME).withHttpPort(-1),
                client,
                EtcdUnderTest.ADDRESSING,
                Optional.of(EtcdUnderTest.BACKUP_DIR),
                Optional.of(restore),
                Optional.of(webhook),
                null,
                UnaryOperator.identity())
            .start()) {
      // The webhook is back, answering from the operator's own runtime.
      admission.assertRefused(API, CLUSTER, "again", "version: 3.3.9", "3.3.9");

      X509Certificate webhookCertificate = servedCertificate(webhook.port());
      assertThat(servedCertificate(restorePort)).isEqualTo(webhookCertificate);
      assertThat(
              webhookCertificate.getSubjectAlternativeNames().stream()
                  .map(name -> String.valueOf(name.get(1)))
                  .toList())
          .contains("localhost", "restore.example");
    }
  }

  /** The serving certificate presented on {@code port}, verified against the configured CA. */
  private X509Certificate servedCertificate(int port) throws Exception {
    byte[] pem = Base64.getDecoder().decode(admission.caBundle());
    SSLContext trust = TrustedCa.sslContext(new String(pem, StandardCharsets.UTF_8));
    try (SSLSocket socket = (SSLSocket) trust.getSocketFactory().createSocket("localhost", port)) {
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }
}
