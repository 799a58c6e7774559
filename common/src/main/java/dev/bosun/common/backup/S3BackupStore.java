package dev.bosun.common.backup;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Backups in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, …), over the JDK's HTTP client with
 * SigV4 signatures. A backup is uploaded in one PUT once it is complete (spooled to a temporary
 * file first, which also gives the payload hash the signature needs), so a half-written backup is
 * never visible; the S3 limit of 5 GiB per PUT applies.
 */
public final class S3BackupStore implements BackupStore {

  private static final String EMPTY_SHA256 = AwsSigV4.sha256Hex(new byte[0]);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration UPLOAD_TIMEOUT = Duration.ofMinutes(30);
  private static final Pattern ERROR_PART = Pattern.compile("<(Code|Message)>([^<]*)</\\1>");

  private final S3Location where;
  private final S3Credentials credentials;
  private final HttpClient http;
  private final Clock clock;

  public S3BackupStore(S3Location where, S3Credentials credentials) {
    this(
        where,
        credentials,
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build(),
        Clock.systemUTC());
  }

  S3BackupStore(S3Location where, S3Credentials credentials, HttpClient http, Clock clock) {
    this.where = where;
    this.credentials = credentials;
    this.http = http;
    this.clock = clock;
  }

  @Override
  public StoredObject write(String key, InputStream content) throws IOException {
    BackupKeys.validate(key);
    Path spool = Files.createTempFile("bosun-s3-upload-", ".part");
    try {
      MessageDigest sha = sha256();
      long size;
      try (OutputStream out = new DigestOutputStream(Files.newOutputStream(spool), sha)) {
        size = content.transferTo(out);
      }
      String hash = HexFormat.of().formatHex(sha.digest());
      HttpResponse<String> response =
          send(
              "PUT",
              objectPath(key),
              Map.of(),
              hash,
              HttpRequest.BodyPublishers.ofFile(spool),
              UPLOAD_TIMEOUT,
              HttpResponse.BodyHandlers.ofString());
      expect(response, "upload " + location(key), 200);
      return new StoredObject(key, size, clock.instant(), location(key));
    } finally {
      Files.deleteIfExists(spool);
    }
  }

  @Override
  public InputStream read(String key) throws IOException {
    BackupKeys.validate(key);
    HttpResponse<InputStream> response =
        send(
            "GET",
            objectPath(key),
            Map.of(),
            EMPTY_SHA256,
            HttpRequest.BodyPublishers.noBody(),
            CALL_TIMEOUT,
            HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() == 200) {
      return response.body();
    }
    String body;
    try (InputStream in = response.body()) {
      body = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
    }
    if (response.statusCode() == 404) {
      throw new NoSuchFileException(location(key), null, "no such backup" + errorOf(body));
    }
    throw new IOException(
        "download " + location(key) + " failed: HTTP " + response.statusCode() + errorOf(body));
  }

  @Override
  public List<StoredObject> list(String prefix) throws IOException {
    String p = BackupKeys.validatePrefix(prefix);
    String base = where.prefix().isEmpty() ? "" : where.prefix() + "/";
    List<StoredObject> found = new ArrayList<>();
    String token = null;
    do {
      Map<String, String> query = new LinkedHashMap<>();
      query.put("list-type", "2");
      query.put("prefix", base + p);
      if (token != null) {
        query.put("continuation-token", token);
      }
      HttpResponse<String> response =
          send(
              "GET",
              bucketPath(),
              query,
              EMPTY_SHA256,
              HttpRequest.BodyPublishers.noBody(),
              CALL_TIMEOUT,
              HttpResponse.BodyHandlers.ofString());
      expect(response, "list " + location(p.isEmpty() ? "" : p), 200);
      Document page = parse(response.body());
      NodeList contents = page.getElementsByTagName("Contents");
      for (int i = 0; i < contents.getLength(); i++) {
        Element item = (Element) contents.item(i);
        String objectKey = text(item, "Key");
        String key = objectKey.substring(base.length());
        found.add(
            new StoredObject(
                key,
                Long.parseLong(text(item, "Size")),
                Instant.parse(text(item, "LastModified")),
                location(key)));
      }
      token =
          "true".equals(text(page.getDocumentElement(), "IsTruncated"))
              ? text(page.getDocumentElement(), "NextContinuationToken")
              : null;
    } while (token != null && !token.isEmpty());
    found.sort(Comparator.comparing(StoredObject::key));
    return found;
  }

  @Override
  public void delete(String key) throws IOException {
    BackupKeys.validate(key);
    HttpResponse<String> response =
        send(
            "DELETE",
            objectPath(key),
            Map.of(),
            EMPTY_SHA256,
            HttpRequest.BodyPublishers.noBody(),
            CALL_TIMEOUT,
            HttpResponse.BodyHandlers.ofString());
    expect(response, "delete " + location(key), 200, 204, 404);
  }

  @Override
  public String location(String key) {
    return "s3://" + where.bucket() + "/" + where.objectKey(key);
  }

  private String bucketPath() {
    return basePath() + (where.pathStyle() ? "/" + where.bucket() : "") + "/";
  }

  private String objectPath(String key) {
    return basePath()
        + (where.pathStyle() ? "/" + where.bucket() : "")
        + "/"
        + AwsSigV4.encode(where.objectKey(key), false);
  }

  private String basePath() {
    String path = where.endpoint().getRawPath();
    return path == null ? "" : path.replaceAll("/+$", "");
  }

  private String hostHeader() {
    URI e = where.endpoint();
    String host = where.pathStyle() ? e.getHost() : where.bucket() + "." + e.getHost();
    int port = e.getPort();
    boolean defaultPort =
        port == -1
            || ("http".equals(e.getScheme()) && port == 80)
            || ("https".equals(e.getScheme()) && port == 443);
    return defaultPort ? host : host + ":" + port;
  }

  private <T> HttpResponse<T> send(
      String method,
      String path,
      Map<String, String> query,
      String payloadSha256,
      HttpRequest.BodyPublisher body,
      Duration timeout,
      HttpResponse.BodyHandler<T> handler)
      throws IOException {
    String host = hostHeader();
    AwsSigV4.Signed signed =
        AwsSigV4.sign(
            method,
            path,
            query,
            Map.of("host", host, "x-amz-content-sha256", payloadSha256),
            payloadSha256,
            where.region(),
            credentials,
            ZonedDateTime.now(clock));
    String q = query.isEmpty() ? "" : "?" + AwsSigV4.canonicalQuery(query);
    URI uri = URI.create(where.endpoint().getScheme() + "://" + host + path + q);
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .method(method, body)
            .timeout(timeout)
            .header("x-amz-content-sha256", payloadSha256)
            .header("x-amz-date", signed.amzDate())
            .header("Authorization", signed.authorization())
            .build();
    try {
      return http.send(request, handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while calling " + uri, e);
    }
  }

  private static void expect(HttpResponse<String> response, String what, int... ok)
      throws IOException {
    for (int code : ok) {
      if (response.statusCode() == code) {
        return;
      }
    }
    throw new IOException(
        what + " failed: HTTP " + response.statusCode() + errorOf(response.body()));
  }

  /** The S3 error code and message of an error body, never the request (no credentials). */
  private static String errorOf(String body) {
    StringBuilder out = new StringBuilder();
    Matcher m = ERROR_PART.matcher(body == null ? "" : body);
    while (m.find()) {
      out.append(out.isEmpty() ? " (" : ", ").append(m.group(1)).append(": ").append(m.group(2));
    }
    return out.isEmpty() ? "" : out.append(')').toString();
  }

  private static Document parse(String xml) throws IOException {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      return factory
          .newDocumentBuilder()
          .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    } catch (ParserConfigurationException | SAXException e) {
      throw new IOException("the object store answered with unreadable XML", e);
    }
  }

  private static String text(Element parent, String tag) {
    NodeList nodes = parent.getElementsByTagName(tag);
    return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
