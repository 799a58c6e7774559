package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import dev.bosun.common.tls.CertificateBundle;
import dev.bosun.common.tls.CertificateIssuer;
import dev.bosun.common.tls.HttpsEndpoint;
import dev.bosun.common.tls.IssuedCertificate;
import dev.bosun.common.transfer.ArtifactDownload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code FetchSnapshot fetch} against the operator's snapshot route on a real HTTPS server on
 * loopback, trusting only the CA it is given: retries while the operator cannot answer, the copy
 * checked against the announced size, never a partial file left where the restore reads.
 */
class FetchSnapshotTest {

  static final String KEY = "team/demo/nightly/1.db";

  @TempDir Path tmp;
  byte[] snapshot;
  String token;
  HttpsEndpoint server;
  CertificateBundle certificates;

  /** What each request got before the route answered: 503, a cut-off body, or nothing special. */
  final List<String> faults = new CopyOnWriteArrayList<>();

  final AtomicInteger requests = new AtomicInteger();
  final List<Duration> pauses = new CopyOnWriteArrayList<>();
  final ByteArrayOutputStream log = new ByteArrayOutputStream();

  @BeforeEach
  void operator() throws Exception {
    Path root = tmp.resolve("backups");
    snapshot = new byte[1024 * 1024 + 3];
    new Random(3).nextBytes(snapshot);
    Files.createDirectories(root.resolve(KEY).getParent());
    Files.write(root.resolve(KEY), snapshot);
    token = RestoreSecrets.newToken();
    var secret = RestoreSecretsTest.written("demo", KEY, token);
    SnapshotRoute route = new SnapshotRoute(root, Set.of(), (ns, name) -> secret);
    certificates = certificates("localhost");
    server =
        HttpsEndpoint.start(
            0,
            certificates.serverContext(),
            Map.of(
                SnapshotRoute.PATH,
                exchange -> {
                  int n = requests.getAndIncrement();
                  String fault = n < faults.size() ? faults.get(n) : "none";
                  switch (fault) {
                    case "unavailable" -> fail(exchange, 503);
                    case "not found" -> fail(exchange, 404);
                    case "cut off" -> cutOff(exchange);
                    default -> route.handle(exchange);
                  }
                }),
            2,
            "test-restore");
  }

  /** A new CA and a serving certificate it signed for {@code name}. */
  static CertificateBundle certificates(String name) {
    Instant now = Instant.now();
    IssuedCertificate ca = CertificateIssuer.authority("test CA", now, Duration.ofDays(1));
    return new CertificateBundle(
        ca, CertificateIssuer.serving(ca, List.of(name), now, Duration.ofDays(1)));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static void fail(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  /** Announces the whole snapshot, sends half of it, and drops the connection. */
  void cutOff(HttpExchange exchange) throws IOException {
    exchange.sendResponseHeaders(200, snapshot.length);
    OutputStream out = exchange.getResponseBody();
    out.write(snapshot, 0, snapshot.length / 2);
    out.flush();
    exchange.close();
  }

  Function<SSLContext, ArtifactDownload> download(int attempts) {
    return tls -> download(attempts, tls);
  }

  ArtifactDownload download(int attempts, SSLContext tls) {
    return new ArtifactDownload(
        java.net.http.HttpClient.newBuilder()
            .sslContext(tls)
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build(),
        new ArtifactDownload.Retries(attempts, Duration.ofMillis(1000), Duration.ofMillis(4000)),
        pauses::add,
        new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  /** The fetch container's environment, the token and the CA written as the Secret's files. */
  Map<String, String> env(String token) throws IOException {
    return env("https", token, certificates.caBundlePem());
  }

  Map<String, String> env(String scheme, String token, String ca) throws IOException {
    Path secret = Files.createDirectories(tmp.resolve("secret"));
    Files.writeString(secret.resolve("token"), token + "\n");
    Files.writeString(secret.resolve("ca.crt"), ca);
    return Map.of(
        FetchSnapshot.URL,
        SnapshotRoute.url(URI.create(scheme + "://localhost:" + server.port()), "team", "demo")
            .toString(),
        FetchSnapshot.TOKEN_FILE,
        secret.resolve("token").toString(),
        FetchSnapshot.CA_FILE,
        secret.resolve("ca.crt").toString(),
        FetchSnapshot.KEY,
        KEY);
  }

  @Test
  void fetchesTheSnapshotOverHttpsWithTheTokenFromItsFileWhenTheUrlIsSet() throws Exception {
    Path target = tmp.resolve("restore/snapshot.db");

    FetchSnapshot.fetch(env(token), target, download(30));

    assertThat(Files.readAllBytes(target)).isEqualTo(snapshot);
    assertThat(requests).hasValue(1);
    assertThat(pauses).isEmpty();
    assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain(token);
  }

  @Test
  void retriesWhileTheOperatorCannotAnswerAndRejectsACutOffCopy() throws Exception {
    faults.addAll(List.of("unavailable", "not found", "cut off", "unavailable"));
    Path target = tmp.resolve("restore/snapshot.db");

    FetchSnapshot.fetch(env(token), target, download(30));

    assertThat(Files.readAllBytes(target)).isEqualTo(snapshot);
    assertThat(requests).hasValue(5);
    assertThat(pauses)
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(4));
    assertThat(Files.list(target.getParent())).containsExactly(target);
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("attempt 1/30", "HTTP 503", "attempt 3/30")
        .doesNotContain(token);
  }

  @Test
  void givesUpAfterTheLastAttemptLeavingNoFile() {
    faults.addAll(List.of("unavailable", "unavailable", "unavailable", "unavailable"));
    Path target = tmp.resolve("restore/snapshot.db");

    assertThatThrownBy(() -> FetchSnapshot.fetch(env(token), target, download(3)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("3 attempts");
    assertThat(requests).hasValue(3);
    assertThat(pauses).hasSize(2);
    assertThat(target.getParent()).isEmptyDirectory();
  }

  @Test
  void aRefusedTokenIsNotTriedAgain() {
    Path target = tmp.resolve("restore/snapshot.db");

    assertThatThrownBy(() -> FetchSnapshot.fetch(env("wrong"), target, download(30)))
        .isInstanceOf(ArtifactDownload.Refused.class)
        .hasMessageContaining("403");
    assertThat(requests).hasValue(1);
    assertThat(pauses).isEmpty();
    assertThat(target).doesNotExist();
  }

  @Test
  void aPlainHttpUrlIsRefusedBeforeAnyRequest() {
    Path target = tmp.resolve("restore/snapshot.db");

    assertThatThrownBy(
            () ->
                FetchSnapshot.fetch(
                    env("http", token, certificates.caBundlePem()), target, download(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("https");
    assertThat(requests).hasValue(0);
  }

  @Test
  void aServerWhoseCertificateIsNotFromTheGivenCaGetsNoTokenAndNoRetry() throws Exception {
    Path target = tmp.resolve("restore/snapshot.db");
    String otherCa = certificates("localhost").caBundlePem();

    assertThatThrownBy(
            () -> FetchSnapshot.fetch(env("https", token, otherCa), target, download(30)))
        .isInstanceOf(ArtifactDownload.Refused.class)
        .hasMessageContaining("certificate");
    assertThat(requests).as("no request reached the route").hasValue(0);
    assertThat(pauses).isEmpty();
    assertThat(target).doesNotExist();
  }

  @Test
  void anOperatorThatIsNotListeningYetIsWaitedFor() throws Exception {
    int port = server.port();
    server.close();
    Path target = tmp.resolve("restore/snapshot.db");

    assertThatThrownBy(() -> FetchSnapshot.fetch(env(token), target, download(2)))
        .isInstanceOf(IOException.class);
    assertThat(pauses).containsExactly(Duration.ofSeconds(1));
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("https://localhost:" + port + "/restore/v1/team/demo");
  }

  @Test
  void pausesDoubleUpToTheLongest() {
    ArtifactDownload.Retries r = ArtifactDownload.Retries.DEFAULT;
    assertThat(r.attempts()).isEqualTo(30);
    Duration total = Duration.ZERO;
    for (int attempt = 1; attempt < r.attempts(); attempt++) {
      total = total.plus(r.pauseAfter(attempt));
    }
    assertThat(r.pauseAfter(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(r.pauseAfter(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(r.pauseAfter(29)).isEqualTo(Duration.ofSeconds(4));
    assertThat(total)
        .as("about two minutes in all")
        .isBetween(Duration.ofSeconds(100), Duration.ofSeconds(130));
  }

  @Test
  void installKeepsTheRestoredModesAndStartsOverAfterAnInterruptedCopy() throws IOException {
    Path restored = tmp.resolve("restore/data");
    Files.createDirectories(restored.resolve("member/snap"));
    Files.writeString(restored.resolve("member/snap/db"), "bolt");
    // etcdctl writes the data directory 0700: the member (its owner) must find it so.
    Files.setPosixFilePermissions(
        restored, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(
        restored.resolve("member/snap/db"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    Path dataDir = tmp.resolve("volume/default.etcd");
    Path leftover = tmp.resolve("volume/default.etcd.restoring/member");
    Files.createDirectories(leftover);
    Files.writeString(leftover.resolve("half-copied"), "x");

    FetchSnapshot.install(restored, dataDir);

    assertThat(Files.readString(dataDir.resolve("member/snap/db"))).isEqualTo("bolt");
    assertThat(dataDir.resolve("member/half-copied")).doesNotExist();
    assertThat(tmp.resolve("volume/default.etcd.restoring")).doesNotExist();
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dataDir)))
        .isEqualTo("rwx------");
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dataDir.resolve("member/snap/db"))))
        .isEqualTo("rw-------");
    assertThat(Files.getOwner(dataDir.resolve("member/snap/db")))
        .isEqualTo(Files.getOwner(restored.resolve("member/snap/db")));
  }

  @Test
  void installKeepsADataDirectoryThatIsAlreadyThere() throws IOException {
    Path restored = tmp.resolve("restore/data");
    Files.createDirectories(restored);
    Files.writeString(restored.resolve("new"), "snapshot");
    Path dataDir = tmp.resolve("volume/default.etcd");
    Files.createDirectories(dataDir);
    Files.writeString(dataDir.resolve("old"), "written since");

    FetchSnapshot.install(restored, dataDir);

    assertThat(dataDir.resolve("new")).doesNotExist();
    assertThat(Files.readString(dataDir.resolve("old"))).isEqualTo("written since");
  }
}
