package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot route on a real HTTP server on loopback, serving a real file. */
class SnapshotRouteTest {

  static final String KEY = "team/demo/nightly/20240101T000000Z.db";

  @TempDir Path root;
  byte[] snapshot;
  String token;
  final Map<String, Secret> secrets = new ConcurrentHashMap<>();
  final AtomicInteger reads = new AtomicInteger();
  volatile boolean apiDown;
  HttpServer server;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void serve() throws Exception {
    snapshot = new byte[3 * 1024 * 1024 + 17];
    new Random(7).nextBytes(snapshot);
    Files.createDirectories(root.resolve(KEY).getParent());
    Files.write(root.resolve(KEY), snapshot);
    Files.createDirectories(root.resolve("other/db"));
    Files.writeString(root.resolve("other/db/1.db"), "another namespace's");
    token = RestoreSecrets.newToken();
    secrets.put("team/demo-restore", RestoreSecretsTest.written("demo", KEY, token));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext(
        SnapshotRoute.PATH,
        new SnapshotRoute(
            root,
            Set.of(),
            (ns, name) -> {
              reads.incrementAndGet();
              if (apiDown) {
                throw new KubernetesClientException("connection refused");
              }
              return secrets.get(ns + "/" + name);
            }));
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  URI url(String ns, String cluster) {
    return SnapshotRoute.url(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), ns, cluster);
  }

  HttpResponse<byte[]> get(URI url, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void theRightTokenGetsTheSnapshotByteForByteWithItsSize() throws Exception {
    HttpResponse<byte[]> response = get(url("team", "demo"), "Bearer " + token);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValueAsLong("Content-Length")).hasValue(snapshot.length);
    assertThat(response.body()).isEqualTo(snapshot);
    assertThat(reads).as("one Secret read per request").hasValue(1);
  }

  @Test
  void aWrongOrMissingTokenIsForbiddenWithoutDetail() throws Exception {
    for (String authorization :
        new String[] {"Bearer " + token + "x", "Bearer ", "Basic " + token, token, null}) {
      HttpResponse<byte[]> response = get(url("team", "demo"), authorization);
      assertThat(response.statusCode()).as(String.valueOf(authorization)).isEqualTo(403);
      assertThat(new String(response.body())).isEqualTo("forbidden\n");
    }
  }

  @Test
  void anUnknownClusterIsNotFoundWhateverTheToken() throws Exception {
    assertThat(get(url("team", "nobody"), "Bearer " + token).statusCode()).isEqualTo(404);
    assertThat(get(url("elsewhere", "demo"), "Bearer " + token).statusCode()).isEqualTo(404);
    URI base = url("team", "demo");
    assertThat(get(URI.create(base + "/extra"), "Bearer " + token).statusCode()).isEqualTo(404);
    assertThat(
            get(URI.create(base.toString().replace("/demo", "/..")), "Bearer " + token)
                .statusCode())
        .isEqualTo(404);
  }

  @Test
  void aSecretTheOperatorDidNotWriteCountsAsNone() throws Exception {
    Secret foreign =
        RestoreSecrets.desired(
            RestoreSecretsTest.cluster("demo"), KEY, token, RestoreSecretsTest.CA);
    secrets.put("team/demo-restore", foreign); // no owner reference
    assertThat(get(url("team", "demo"), "Bearer " + token).statusCode()).isEqualTo(404);
  }

  @Test
  void aKeyOutsideTheNamespaceIsNotServedEvenWithTheRightToken() throws Exception {
    secrets.put("team/demo-restore", RestoreSecretsTest.written("demo", "other/db/1.db", token));
    assertThat(get(url("team", "demo"), "Bearer " + token).statusCode()).isEqualTo(404);
    secrets.put(
        "team/demo-restore", RestoreSecretsTest.written("demo", "team/../other/db/1.db", token));
    assertThat(get(url("team", "demo"), "Bearer " + token).statusCode()).isEqualTo(404);
  }

  @Test
  void aNamespaceTheOperatorDoesNotWatchIsNotFound() throws Exception {
    server.removeContext(SnapshotRoute.PATH);
    server.createContext(
        SnapshotRoute.PATH,
        new SnapshotRoute(root, Set.of("team-b"), (ns, name) -> secrets.get(ns + "/" + name)));
    assertThat(get(url("team", "demo"), "Bearer " + token).statusCode()).isEqualTo(404);
  }

  @Test
  void onlyGetIsAnswered() throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(url("team", "demo"))
                .header("Authorization", "Bearer " + token)
                .DELETE()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(405);
  }

  @Test
  void anUnreachableApiServerIsATemporaryFailure() throws Exception {
    apiDown = true;
    assertThat(get(url("team", "demo"), "Bearer " + token).statusCode()).isEqualTo(503);
  }

  @Test
  void theUrlJoinsTheOperatorsBaseWithoutDoubleSlashes() {
    assertThat(SnapshotRoute.url(URI.create("http://op.ns.svc:8080/"), "team", "demo"))
        .isEqualTo(URI.create("http://op.ns.svc:8080/restore/v1/team/demo"));
    assertThat(SnapshotRoute.url(URI.create("http://op.ns.svc:8080"), "team", "demo"))
        .isEqualTo(URI.create("http://op.ns.svc:8080/restore/v1/team/demo"));
  }
}
