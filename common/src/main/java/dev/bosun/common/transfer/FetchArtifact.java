package dev.bosun.common.transfer;

import dev.bosun.common.tls.TrustedCa;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * The fetch init container of a restoring Pod (an operator image, run with this class as its main):
 * downloads the artifact at {@value #URL} ({@link ArtifactRoute}) into a file of the Pod's
 * emptyDir, over HTTPS trusting only the operator's CA, sending the token only in the Authorization
 * header. Both come from files of the restore's Secret, so the token is in no command line and no
 * environment listing.
 */
public final class FetchArtifact {

  /** The operator's HTTPS URL of the artifact. */
  public static final String URL = "BOSUN_RESTORE_URL";

  /** The file holding the bearer token the operator expects (the restore's Secret, mounted). */
  public static final String TOKEN_FILE = "BOSUN_RESTORE_TOKEN_FILE";

  /** The file holding the operator's CA (PEM), the only CA the download trusts. */
  public static final String CA_FILE = "BOSUN_RESTORE_CA_FILE";

  private FetchArtifact() {}

  /**
   * {@code fetch <target file>}. A failure ends the process with 1 and one line on standard error,
   * the last line of the log, which the kubelet keeps as the container's termination message.
   */
  public static void main(String[] args) {
    try {
      if (args.length != 2 || !args[0].equals("fetch")) {
        throw new IllegalArgumentException("usage: FetchArtifact fetch <target file>");
      }
      fetch(System.getenv(), Path.of(args[1]), ArtifactDownload::standard);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  /** Whether {@code env} asks for a fetch from the operator (else the caller fetches otherwise). */
  public static boolean fromOperator(Map<String, String> env) {
    String url = env.get(URL);
    return url != null && !url.isBlank();
  }

  /**
   * Fetches {@value #URL} into {@code target} with the download {@code downloads} makes for a
   * client trusting the operator's CA.
   */
  public static void fetch(
      Map<String, String> env, Path target, Function<SSLContext, ArtifactDownload> downloads)
      throws IOException {
    URI uri = URI.create(require(env, URL).trim());
    if (!"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          URL + " must be an https URL; the token is never sent in clear: " + uri);
    }
    String token = Files.readString(Path.of(require(env, TOKEN_FILE))).trim();
    String ca = Files.readString(Path.of(require(env, CA_FILE)));
    SSLContext trust;
    try {
      trust = TrustedCa.sslContext(ca);
    } catch (GeneralSecurityException e) {
      throw new IOException("the operator's CA in " + env.get(CA_FILE) + " cannot be used", e);
    }
    downloads.apply(trust).fetch(uri, token, target);
  }

  /** The value of {@code name} in {@code env}; refused when unset or blank. */
  public static String require(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is not set");
    }
    return value;
  }
}
