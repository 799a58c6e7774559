package dev.bosun.common.transfer;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.OptionalLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

/**
 * Fetches what the operator serves to a restore ({@link ArtifactRoute}) into a file over HTTPS: a
 * bearer token in the Authorization header only, bounded retries with growing pauses (the operator
 * may be restarting or rolling), the copy checked against the size the server announced, written to
 * a temporary file and renamed into place only when whole.
 */
public final class ArtifactDownload {

  /**
   * How often and how patiently to try.
   *
   * @param attempts tries in all
   * @param firstPause pause after the first failure; each next one doubles, up to maxPause
   * @param maxPause longest pause
   */
  public record Retries(int attempts, Duration firstPause, Duration maxPause) {

    /** 30 tries over about two minutes: 1 s, 2 s, then 4 s between tries. */
    public static final Retries DEFAULT =
        new Retries(30, Duration.ofSeconds(1), Duration.ofSeconds(4));

    /** The pause after failed try number {@code attempt}. */
    public Duration pauseAfter(int attempt) {
      Duration pause = firstPause.multipliedBy(1L << Math.min(attempt - 1, 20));
      return pause.compareTo(maxPause) > 0 ? maxPause : pause;
    }
  }

  /** Waits between tries (tests do not want to). */
  @FunctionalInterface
  public interface Pauses {
    void pause(Duration duration) throws InterruptedException;
  }

  /**
   * A failure that another try cannot mend: the server refused this token, or its certificate does
   * not verify against the operator's CA (the token is then never sent).
   */
  public static final class Refused extends IOException {
    public Refused(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final Retries retries;
  private final Pauses pauses;
  private final PrintStream log;

  public ArtifactDownload(HttpClient http, Retries retries, Pauses pauses, PrintStream log) {
    this.http = http;
    this.retries = retries;
    this.pauses = pauses;
    this.log = log;
  }

  /** The download as a fetch container runs it, trusting {@code tls}'s CAs only. */
  public static ArtifactDownload standard(SSLContext tls) {
    return new ArtifactDownload(
        HttpClient.newBuilder()
            .sslContext(tls)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build(),
        Retries.DEFAULT,
        d -> Thread.sleep(d.toMillis()),
        System.out);
  }

  /** Downloads {@code url} into {@code target}; the number of bytes written. */
  public long fetch(URI url, String token, Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path partial = dir.resolve(target.getFileName() + ".partial");
    IOException last = null;
    for (int attempt = 1; attempt <= retries.attempts(); attempt++) {
      try {
        long size = once(url, token, partial);
        move(partial, target);
        log.println("fetched " + size + " bytes from " + url + " (attempt " + attempt + ")");
        return size;
      } catch (Refused e) {
        Files.deleteIfExists(partial);
        throw e;
      } catch (IOException e) {
        Files.deleteIfExists(partial);
        last = e;
      }
      if (attempt < retries.attempts()) {
        Duration pause = retries.pauseAfter(attempt);
        log.println(
            "attempt "
                + attempt
                + "/"
                + retries.attempts()
                + " to fetch "
                + url
                + " failed ("
                + describe(last)
                + "); next in "
                + pause.toMillis()
                + " ms");
        try {
          pauses.pause(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting to fetch " + url, e);
        }
      }
    }
    throw new IOException(
        "could not fetch " + url + " in " + retries.attempts() + " attempts: " + describe(last),
        last);
  }

  /** A failure for the container's log (the JDK's connection errors often have no message). */
  private static String describe(IOException e) {
    return e.getMessage() == null || e.getMessage().isBlank()
        ? e.getClass().getSimpleName()
        : e.getMessage();
  }

  private long once(URI url, String token, Path partial) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .GET()
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(30))
            .build();
    HttpResponse<Path> response;
    try {
      response =
          http.send(
              request,
              info ->
                  info.statusCode() == 200
                      ? HttpResponse.BodySubscribers.ofFile(partial)
                      : HttpResponse.BodySubscribers.replacing(null));
    } catch (SSLHandshakeException e) {
      throw new Refused(
          url
              + " presented a certificate that does not verify against the operator's CA for this"
              + " name: "
              + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while fetching " + url, e);
    }
    int status = response.statusCode();
    if (status == 401 || status == 403) {
      throw new Refused(
          url
              + " answered HTTP "
              + status
              + ": the token was not accepted (a newer restore replaced it)");
    }
    if (status != 200) {
      throw new IOException(url + " answered HTTP " + status);
    }
    OptionalLong announced = response.headers().firstValueAsLong("Content-Length");
    if (announced.isEmpty()) {
      throw new IOException(url + " announced no Content-Length");
    }
    long received = Files.size(partial);
    if (received != announced.getAsLong()) {
      throw new IOException(
          "received " + received + " bytes from " + url + ", announced " + announced.getAsLong());
    }
    return received;
  }

  private static void move(Path partial, Path target) throws IOException {
    try {
      Files.move(
          partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
