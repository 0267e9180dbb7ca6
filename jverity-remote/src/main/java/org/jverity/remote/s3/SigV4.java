package org.jverity.remote.s3;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for S3 (AWS4-HMAC-SHA256, header-based): the headers that make S3 accept
 * a request. Signs {@code host}, {@code range} when present and every {@code x-amz-*} header; not
 * {@code if-match} (S3 does not ask for it, and a proxy may rewrite it). Stateless and thread-safe.
 */
public final class SigV4 {
  /** The payload hash S3 accepts in place of the body's (the body is then not covered). */
  public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

  /** SHA-256 of no bytes: the payload hash of GET and HEAD. */
  public static final String EMPTY_PAYLOAD =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  private static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final String SERVICE = "s3";
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final HexFormat HEX = HexFormat.of();

  private final String region;

  public SigV4(String region) {
    this.region = Objects.requireNonNull(region, "region");
  }

  public String region() {
    return region;
  }

  /**
   * The headers to add to a request: {@code x-amz-date}, {@code x-amz-content-sha256}, {@code
   * x-amz-security-token} for session keys, and {@code authorization}.
   *
   * @param uri the request's URI exactly as it goes on the wire (its raw path and query are signed)
   * @param headers the request's other headers, lower-case names ({@code host} is taken from the
   *     URI, as the JDK's client sends it)
   * @param payloadHash the hex SHA-256 of the body, or {@link #UNSIGNED_PAYLOAD}
   */
  public Map<String, String> headers(
      AwsCredentials keys,
      Instant now,
      String method,
      URI uri,
      Map<String, String> headers,
      String payloadHash) {
    Map<String, String> added = new LinkedHashMap<>();
    added.put("x-amz-date", TIMESTAMP.format(now));
    added.put("x-amz-content-sha256", payloadHash);
    if (keys.sessionToken() != null) {
      added.put("x-amz-security-token", keys.sessionToken());
    }
    Map<String, String> signed = signedHeaders(uri, headers, added);
    String canonical = canonicalRequest(method, uri, signed, payloadHash);
    String scope = scope(now);
    String toSign =
        ALGORITHM + "\n" + added.get("x-amz-date") + "\n" + scope + "\n" + sha256(canonical);
    String signature = HEX.formatHex(hmac(signingKey(keys.secretAccessKey(), now), toSign));
    added.put(
        "authorization",
        ALGORITHM
            + " Credential="
            + keys.accessKeyId()
            + "/"
            + scope
            + ", SignedHeaders="
            + String.join(";", signed.keySet())
            + ", Signature="
            + signature);
    return added;
  }

  /** The headers a signature covers, sorted by name: host, range, every x-amz-*. */
  static Map<String, String> signedHeaders(
      URI uri, Map<String, String> headers, Map<String, String> added) {
    Map<String, String> signed = new TreeMap<>();
    signed.put("host", host(uri));
    for (Map<String, String> m : List.of(headers, added)) {
      m.forEach(
          (name, value) -> {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.equals("range") || n.startsWith("x-amz-")) {
              signed.put(n, value.strip().replaceAll(" +", " "));
            }
          });
    }
    return signed;
  }

  /** Task 1 of the algorithm: the canonical request, whose SHA-256 the string to sign carries. */
  static String canonicalRequest(
      String method, URI uri, Map<String, String> signedHeaders, String payloadHash) {
    StringBuilder s = new StringBuilder();
    s.append(method).append('\n');
    s.append(canonicalUri(uri)).append('\n');
    s.append(canonicalQuery(uri.getRawQuery())).append('\n');
    signedHeaders.forEach((name, value) -> s.append(name).append(':').append(value).append('\n'));
    s.append('\n');
    s.append(String.join(";", signedHeaders.keySet())).append('\n');
    s.append(payloadHash);
    return s.toString();
  }

  /** The Host header the JDK's client sends: the port only when it is not the scheme's default. */
  static String host(URI uri) {
    int port = uri.getPort();
    int standard = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    return port == -1 || port == standard ? uri.getHost() : uri.getHost() + ":" + port;
  }

  /** Each path segment decoded, then encoded once as S3 wants it (not twice, as other services). */
  static String canonicalUri(URI uri) {
    String raw = uri.getRawPath();
    if (raw == null || raw.isEmpty()) {
      return "/";
    }
    String[] segments = raw.split("/", -1);
    List<String> encoded = new ArrayList<>(segments.length);
    for (String segment : segments) {
      encoded.add(S3Encoding.encode(S3Encoding.decode(segment)));
    }
    return String.join("/", encoded);
  }

  /** Parameters encoded as S3 wants them and sorted by name, then value. */
  static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> params = new ArrayList<>();
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.add(
          new String[] {
            S3Encoding.encode(S3Encoding.decode(name)), S3Encoding.encode(S3Encoding.decode(value))
          });
    }
    params.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
    StringBuilder s = new StringBuilder();
    for (String[] p : params) {
      if (!s.isEmpty()) {
        s.append('&');
      }
      s.append(p[0]).append('=').append(p[1]);
    }
    return s.toString();
  }

  private String scope(Instant now) {
    return date(now) + "/" + region + "/" + SERVICE + "/aws4_request";
  }

  private byte[] signingKey(String secret, Instant now) {
    byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date(now));
    k = hmac(k, region);
    k = hmac(k, SERVICE);
    return hmac(k, "aws4_request");
  }

  private static String date(Instant now) {
    return TIMESTAMP.format(now).substring(0, 8);
  }

  /** Hex SHA-256 of a string's UTF-8 bytes. */
  static String sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Hex SHA-256 of bytes: a body's {@code x-amz-content-sha256}. */
  public static String sha256(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new AssertionError("every JDK has HmacSHA256", e);
    }
  }
}
