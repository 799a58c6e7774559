package dev.bosun.etcd.restore;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /restore/v1/<namespace>/<cluster>} on the operator's HTTPS restore port: the snapshot
 * a cluster restored from the operator's backup volume starts from, for its first member's init
 * container. Each request reads the cluster's {@link RestoreSecrets restore Secret} once; the
 * bearer token must match its token (compared in constant time), and only the key it names is
 * served, only from under {@code <backup dir>/<namespace>/} ({@link SnapshotFiles}). Unknown
 * clusters are 404, a wrong token 403, neither says more. Every replica can answer: all of them
 * mount the same volume, and the Secret is read from the API server.
 */
public final class SnapshotRoute implements HttpHandler {

  /** The route's path; a cluster's snapshot is below it at {@code <namespace>/<cluster>}. */
  public static final String PATH = "/restore/v1";

  /** Snapshots sent at once; one more request thread answers the rest with 503 at once. */
  public static final int CONCURRENT_TRANSFERS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRoute.class);
  private static final String NAME = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";
  private static final Pattern REQUEST =
      Pattern.compile(Pattern.quote(PATH) + "/(?<namespace>" + NAME + ")/(?<cluster>" + NAME + ")");

  /** Reads one Secret from the API server (null when it does not exist). */
  @FunctionalInterface
  public interface SecretReader {
    Secret read(String namespace, String name);
  }

  private final Path backupDir;
  private final Set<String> namespaces;
  private final SecretReader secrets;
  private final Semaphore transfers = new Semaphore(CONCURRENT_TRANSFERS);

  /**
   * @param backupDir the operator's backup directory
   * @param namespaces the namespaces the operator watches (empty: all)
   * @param secrets how the restore Secret is read
   */
  public SnapshotRoute(Path backupDir, Set<String> namespaces, SecretReader secrets) {
    this.backupDir = backupDir;
    this.namespaces = Set.copyOf(namespaces);
    this.secrets = secrets;
  }

  /** The route reading Secrets through the operator's client. */
  public static SnapshotRoute of(Path backupDir, Set<String> namespaces, KubernetesClient client) {
    return new SnapshotRoute(
        backupDir, namespaces, (ns, name) -> client.secrets().inNamespace(ns).withName(name).get());
  }

  /** The URL a member Pod fetches the snapshot of {@code namespace}/{@code cluster} from. */
  public static URI url(URI operatorUrl, String namespace, String cluster) {
    String base = operatorUrl.toString().replaceAll("/+$", "");
    return URI.create(base + PATH + "/" + namespace + "/" + cluster);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      if (!"GET".equals(exchange.getRequestMethod())) {
        reply(exchange, 405, "method not allowed");
        return;
      }
      Matcher m = REQUEST.matcher(exchange.getRequestURI().getRawPath());
      String ns = m.matches() ? m.group("namespace") : null;
      if (ns == null || (!namespaces.isEmpty() && !namespaces.contains(ns))) {
        reply(exchange, 404, "no such restore");
        return;
      }
      serve(exchange, ns, m.group("cluster"));
    } finally {
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange, String ns, String cluster) throws IOException {
    Secret secret;
    try {
      secret = secrets.read(ns, RestoreSecrets.name(cluster));
    } catch (KubernetesClientException e) {
      LOG.warn(
          "cannot read the restore Secret of {}/{}: {}", ns, cluster, HumanMessages.describe(e));
      reply(exchange, 503, "the API server could not be asked; retry");
      return;
    }
    if (secret == null || !RestoreSecrets.isFor(secret, cluster)) {
      reply(exchange, 404, "no such restore");
      return;
    }
    if (!RestoreSecrets.accepts(secret, bearer(exchange))) {
      reply(exchange, 403, "forbidden");
      return;
    }
    String key = RestoreSecrets.key(secret).orElse("");
    Optional<Path> file = SnapshotFiles.resolve(backupDir, ns, key);
    if (file.isEmpty()) {
      LOG.warn(
          "the restore of {}/{} names snapshot '{}', which is no file under the namespace's backup"
              + " directory",
          ns,
          cluster,
          key);
      reply(exchange, 404, "no such restore");
      return;
    }
    if (!transfers.tryAcquire()) {
      exchange.getResponseHeaders().set("Retry-After", "5");
      reply(exchange, 503, "busy; retry");
      return;
    }
    try {
      send(exchange, file.get(), key);
    } finally {
      transfers.release();
    }
  }

  private void send(HttpExchange exchange, Path file, String key) throws IOException {
    long started = System.nanoTime();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        InputStream in = Channels.newInputStream(channel)) {
      // Snapshots are renamed into place whole and never changed: the size of the open file is
      // what is sent, and the Content-Length the fetcher checks its copy against.
      long size = channel.size();
      if (size == 0) {
        LOG.warn("snapshot volume:{} is empty", key);
        reply(exchange, 404, "no such restore");
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
      exchange.sendResponseHeaders(200, size);
      try (OutputStream out = exchange.getResponseBody()) {
        in.transferTo(out);
      } catch (IOException e) {
        LOG.info(
            "{}: 200, sending volume:{} ({} bytes) broke off: {}",
            request(exchange),
            key,
            size,
            HumanMessages.describe(e));
        throw e;
      }
      LOG.info(
          "{}: 200, sent volume:{} ({} bytes in {} ms)",
          request(exchange),
          key,
          size,
          (System.nanoTime() - started) / 1_000_000);
    }
  }

  private static String bearer(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    return header.substring(7).trim();
  }

  /** The request as logged: method, path and client address, never a header (the token). */
  private static String request(HttpExchange exchange) {
    return exchange.getRequestMethod()
        + " "
        + exchange.getRequestURI().getRawPath()
        + " from "
        + exchange.getRemoteAddress();
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    LOG.info("{}: {}", request(exchange), status);
    byte[] bytes = (body + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
