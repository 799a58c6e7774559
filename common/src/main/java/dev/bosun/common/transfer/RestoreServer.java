package dev.bosun.common.transfer;

import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.tls.HttpsEndpoint;
import dev.bosun.common.tls.ServingCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves an operator's restore route over HTTPS on the port its {@link RestoreEndpoint} names. */
public final class RestoreServer {

  private static final Logger LOG = LoggerFactory.getLogger(RestoreServer.class);

  private RestoreServer() {}

  /**
   * Serves {@code route} at {@code path} with the certificate {@code tls} keeps, until the returned
   * endpoint is closed; {@code tls} is closed too when the port cannot be had.
   */
  public static HttpsEndpoint start(
      RestoreEndpoint restore, ServingCertificates tls, String path, HttpHandler route) {
    try {
      HttpsEndpoint endpoint =
          HttpsEndpoint.start(
              restore.port(),
              tls.sslContext(),
              Map.of(path, route),
              ArtifactRoute.CONCURRENT_TRANSFERS + 1,
              "restore-server");
      LOG.info("serving restores over HTTPS on port {} as {}", endpoint.port(), restore.url());
      return endpoint;
    } catch (IOException e) {
      tls.close();
      throw new UncheckedIOException("cannot serve the restore route on port " + restore.port(), e);
    }
  }
}
