package dev.bosun.common.backup;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for S3 requests, as every S3-compatible store verifies it. Pure: the
 * caller passes the time, so the result is reproducible (and checked against AWS's published
 * example in the tests).
 */
public final class AwsSigV4 {

  static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyyMMdd");
  private static final HexFormat HEX = HexFormat.of();

  private AwsSigV4() {}

  /** The headers a signed request carries besides the ones it signs itself. */
  public record Signed(String amzDate, String authorization) {}

  /**
   * Signs a request.
   *
   * @param path the URI path exactly as sent, already percent-encoded
   * @param query the query parameters, not encoded
   * @param headers the headers to sign (lower-case names), including {@code host} and {@code
   *     x-amz-content-sha256}; {@code x-amz-date} is added here
   */
  public static Signed sign(
      String method,
      String path,
      Map<String, String> query,
      Map<String, String> headers,
      String payloadSha256,
      String region,
      S3Credentials credentials,
      ZonedDateTime now) {
    ZonedDateTime utc = now.withZoneSameInstant(ZoneOffset.UTC);
    String amzDate = AMZ_DATE.format(utc);
    String date = DATE.format(utc);
    SortedMap<String, String> signed = new TreeMap<>();
    headers.forEach((k, v) -> signed.put(k.toLowerCase(), v.trim().replaceAll(" +", " ")));
    signed.put("x-amz-date", amzDate);
    String signedHeaders = String.join(";", signed.keySet());
    String canonicalRequest =
        method
            + "\n"
            + path
            + "\n"
            + canonicalQuery(query)
            + "\n"
            + signed.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue() + "\n")
                .collect(Collectors.joining())
            + "\n"
            + signedHeaders
            + "\n"
            + payloadSha256;
    String scope = date + "/" + region + "/s3/aws4_request";
    String stringToSign =
        ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + sha256Hex(canonicalRequest);
    byte[] key =
        hmac(("AWS4" + credentials.secretAccessKey()).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, "s3");
    key = hmac(key, "aws4_request");
    String signature = HEX.formatHex(hmac(key, stringToSign));
    return new Signed(
        amzDate,
        ALGORITHM
            + " Credential="
            + credentials.accessKeyId()
            + "/"
            + scope
            + ",SignedHeaders="
            + signedHeaders
            + ",Signature="
            + signature);
  }

  /** The query string in SigV4's canonical form (sorted, every name and value encoded). */
  public static String canonicalQuery(Map<String, String> query) {
    return new TreeMap<>(query)
        .entrySet().stream()
            .map(e -> encode(e.getKey(), true) + "=" + encode(e.getValue(), true))
            .collect(Collectors.joining("&"));
  }

  /**
   * RFC 3986 percent-encoding as SigV4 defines it: unreserved characters stay, everything else is
   * encoded; {@code /} stays only in paths.
   */
  public static String encode(String s, boolean encodeSlash) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || (c == '/' && !encodeSlash)) {
        out.append(c);
      } else {
        out.append('%').append(HEX.withUpperCase().toHexDigits(b));
      }
    }
    return out.toString();
  }

  /** Lower-case hex SHA-256 of a string's UTF-8 bytes. */
  public static String sha256Hex(String s) {
    return sha256Hex(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Lower-case hex SHA-256 of bytes. */
  public static String sha256Hex(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }
}
