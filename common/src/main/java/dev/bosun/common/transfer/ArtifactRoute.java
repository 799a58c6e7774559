package dev.bosun.common.transfer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.Secret;
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
 * {@code GET <path>/<namespace>/<name>} on the operator's HTTPS restore port: the one artifact (a
 * snapshot, a checked dump) a restore of {@code namespace}/{@code name} may fetch. Each request
 * reads that restore's Secret once; the bearer token must match its token ({@link AccessTokens}),
 * and only what {@link Artifacts} resolves from that Secret is served. Unknown restores are 404, a
 * wrong token 403, neither says more. The Secret is read from the API server, so any operator
 * replica can answer.
 */
public final class ArtifactRoute implements HttpHandler {

  /** Artifacts sent at once; one more request thread answers the rest with 503 at once. */
  public static final int CONCURRENT_TRANSFERS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(ArtifactRoute.class);
  private static final String NAME = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";

  /** Reads one Secret from the API server (null when it does not exist). */
  @FunctionalInterface
  public interface SecretReader {
    Secret read(String namespace, String name);
  }

  /** A file to send, and how the log names it. */
  public record Artifact(Path file, String label) {}

  /** What the route serves: which Secret grants a restore, and the file a grant names. */
  public interface Artifacts {

    /** The name of the Secret that grants the restore of {@code name}. */
    String secretName(String name);

    /** Whether {@code secret} is the operator's own grant for {@code name}. */
    boolean isFor(Secret secret, String name);

    /**
     * The file {@code grant} gives the restore of {@code namespace}/{@code name}, or empty when it
     * names none (404). An IOException is a passing trouble: the fetcher is told to retry.
     */
    Optional<Artifact> resolve(String namespace, String name, Secret grant) throws IOException;
  }

  private final String path;
  private final Pattern request;
  private final Set<String> namespaces;
  private final SecretReader secrets;
  private final Artifacts artifacts;
  private final Semaphore transfers = new Semaphore(CONCURRENT_TRANSFERS);

  /**
   * @param path the route's path, below which each restore is at {@code <namespace>/<name>}
   * @param namespaces the namespaces the operator watches (empty: all)
   * @param secrets how a restore's Secret is read
   * @param artifacts what a grant gives
   */
  public ArtifactRoute(
      String path, Set<String> namespaces, SecretReader secrets, Artifacts artifacts) {
    this.path = path;
    this.request =
        Pattern.compile(Pattern.quote(path) + "/(?<namespace>" + NAME + ")/(?<name>" + NAME + ")");
    this.namespaces = Set.copyOf(namespaces);
    this.secrets = secrets;
    this.artifacts = artifacts;
  }

  /** The URL of the artifact of {@code namespace}/{@code name} below the route's {@code path}. */
  public static URI url(URI operatorUrl, String path, String namespace, String name) {
    String base = operatorUrl.toString().replaceAll("/+$", "");
    return URI.create(base + path + "/" + namespace + "/" + name);
  }

  /** The route's path. */
  public String path() {
    return path;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      if (!"GET".equals(exchange.getRequestMethod())) {
        reply(exchange, 405, "method not allowed");
        return;
      }
      Matcher m = request.matcher(exchange.getRequestURI().getRawPath());
      String ns = m.matches() ? m.group("namespace") : null;
      if (ns == null || (!namespaces.isEmpty() && !namespaces.contains(ns))) {
        reply(exchange, 404, "no such restore");
        return;
      }
      serve(exchange, ns, m.group("name"));
    } finally {
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange, String ns, String name) throws IOException {
    Secret secret;
    try {
      secret = secrets.read(ns, artifacts.secretName(name));
    } catch (KubernetesClientException e) {
      LOG.warn("cannot read the restore Secret of {}/{}: {}", ns, name, HumanMessages.describe(e));
      reply(exchange, 503, "the API server could not be asked; retry");
      return;
    }
    if (secret == null || !artifacts.isFor(secret, name)) {
      reply(exchange, 404, "no such restore");
      return;
    }
    if (!AccessTokens.accepts(secret, bearer(exchange))) {
      reply(exchange, 403, "forbidden");
      return;
    }
    if (!transfers.tryAcquire()) {
      exchange.getResponseHeaders().set("Retry-After", "5");
      reply(exchange, 503, "busy; retry");
      return;
    }
    try {
      Optional<Artifact> artifact;
      try {
        artifact = artifacts.resolve(ns, name, secret);
      } catch (IOException e) {
        LOG.warn(
            "the artifact of {}/{} cannot be read now: {}", ns, name, HumanMessages.describe(e));
        exchange.getResponseHeaders().set("Retry-After", "5");
        reply(exchange, 503, "not ready; retry");
        return;
      }
      if (artifact.isEmpty()) {
        reply(exchange, 404, "no such restore");
        return;
      }
      send(exchange, artifact.get());
    } finally {
      transfers.release();
    }
  }

  private void send(HttpExchange exchange, Artifact artifact) throws IOException {
    long started = System.nanoTime();
    try (FileChannel channel = FileChannel.open(artifact.file(), StandardOpenOption.READ);
        InputStream in = Channels.newInputStream(channel)) {
      // Artifacts are renamed into place whole and never changed: the size of the open file is
      // what is sent, and the Content-Length the fetcher checks its copy against.
      long size = channel.size();
      if (size == 0) {
        LOG.warn("{} is empty", artifact.label());
        reply(exchange, 404, "no such restore");
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
      exchange.sendResponseHeaders(200, size);
      try (OutputStream out = exchange.getResponseBody()) {
        in.transferTo(out);
      } catch (IOException e) {
        LOG.info(
            "{}: 200, sending {} ({} bytes) broke off: {}",
            request(exchange),
            artifact.label(),
            size,
            HumanMessages.describe(e));
        throw e;
      }
      LOG.info(
          "{}: 200, sent {} ({} bytes in {} ms)",
          request(exchange),
          artifact.label(),
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
