package org.jverity.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * s3proxy 4.0.0 ({@code org.gaul:s3proxy}, the jar with dependencies) as a child process on a free
 * loopback port: an in-memory ({@code transient}) store checking AWS SigV4 signatures with an
 * identity and credential the test picks, or checking nothing ({@link #startAnonymous}). Requests
 * it makes itself (bucket, upload) are signed by the {@link Signer} the test passes in: jverity's
 * own SigV4 signer, so every upload is also a check of it against s3proxy's verifier (this kit
 * depends on no jverity module, hence the seam).
 *
 * <p>The jar is fetched by Maven into {@code jverity-testkit/target/s3proxy/} (the testkit pom's
 * dependency-plugin execution); it is found there by walking up from the working directory (every
 * module's tests run in their module's directory), or at the system property {@value
 * #JAR_PROPERTY}.
 */
public final class S3Server implements AutoCloseable {
  /** Overrides where the jar is looked for. */
  public static final String JAR_PROPERTY = "jverity.s3proxy.jar";

  private static final String JAR = "s3proxy-4.0.0-jar-with-dependencies.jar";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  /** The headers that sign one request (jverity's SigV4 for a region, with the server's keys). */
  @FunctionalInterface
  public interface Signer {
    /**
     * @param uri the request's URI as sent
     * @param headers its other headers, lower-case names
     * @param payloadHash the hex SHA-256 of the body
     */
    Map<String, String> headers(
        String method, URI uri, Map<String, String> headers, String payloadHash) throws IOException;
  }

  private final Process process;
  private final URI endpoint;
  private final String identity;
  private final String credential;
  private final Signer signer;
  private final Path log;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private S3Server(
      Process process, URI endpoint, String identity, String credential, Signer signer, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.identity = identity;
    this.credential = credential;
    this.signer = signer;
    this.log = log;
  }

  /**
   * Starts s3proxy with SigV4 authentication ({@code aws-v4}), files in {@code dir}, and waits
   * until it answers.
   *
   * @param signer signs the fixture's own requests with {@code identity}/{@code credential}
   */
  public static S3Server start(Path dir, String identity, String credential, Signer signer)
      throws IOException {
    return start(dir, "aws-v4", identity, credential, signer);
  }

  /** Starts s3proxy checking no signature ({@code authorization=none}): public objects. */
  public static S3Server startAnonymous(Path dir) throws IOException {
    return start(dir, "none", "unused", "unused", null);
  }

  private static S3Server start(
      Path dir, String authorization, String identity, String credential, Signer signer)
      throws IOException {
    int port = freePort();
    URI endpoint = URI.create("http://127.0.0.1:" + port);
    Files.createDirectories(dir);
    Path properties = dir.resolve("s3proxy.properties");
    Files.write(
        properties,
        List.of(
            "s3proxy.endpoint=" + endpoint,
            "s3proxy.authorization=" + authorization,
            "s3proxy.identity=" + identity,
            "s3proxy.credential=" + credential,
            // It answers 501 to headers it has no use for, x-amz-security-token among them; the
            // signature still covers them, so session keys are checked all the same.
            "s3proxy.ignore-unknown-headers=true",
            "jclouds.provider=transient",
            "jclouds.identity=unused",
            "jclouds.credential=unused"));
    Path log = dir.resolve("s3proxy.log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process =
        new ProcessBuilder(
                java.toString(),
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                jar().toString(),
                "--properties",
                properties.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    S3Server server = new S3Server(process, endpoint, identity, credential, signer, log);
    try {
      server.awaitAnswer();
    } catch (IOException | RuntimeException e) {
      server.stop();
      throw e;
    }
    return server;
  }

  /** {@code http://127.0.0.1:PORT}: path-style S3, any region. */
  public URI endpoint() {
    return endpoint;
  }

  public String identity() {
    return identity;
  }

  public String credential() {
    return credential;
  }

  /** Creates a bucket (a signed {@code PUT /bucket}). */
  public void createBucket(String bucket) throws IOException {
    send("PUT", URI.create(endpoint + "/" + encode(bucket)), new byte[0]);
  }

  /**
   * Uploads {@code file} as {@code key} (one signed {@code PUT}, the body's real SHA-256 signed),
   * replacing any object there; returns the new ETag.
   */
  public String put(String bucket, String key, Path file) throws IOException {
    return send("PUT", objectUri(bucket, key), Files.readAllBytes(file));
  }

  /** Deletes an object (a signed {@code DELETE}). */
  public void delete(String bucket, String key) throws IOException {
    send("DELETE", objectUri(bucket, key), new byte[0]);
  }

  /** The path-style URL of an object, each key segment percent-encoded (all but A-Za-z0-9-._~). */
  public URI objectUri(String bucket, String key) {
    StringBuilder path = new StringBuilder("/").append(encode(bucket));
    for (String segment : key.split("/", -1)) {
      path.append('/').append(encode(segment));
    }
    return URI.create(endpoint + path.toString());
  }

  /** Stops the child (and waits for it); idempotent. */
  public void stop() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private String send(String method, URI uri, byte[] body) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(60))
            .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
    if (signer != null) {
      signer.headers(method, uri, Map.of(), sha256(body)).forEach(request::header);
    }
    HttpResponse<String> response = exchange(request.build());
    if (response.statusCode() / 100 != 2) {
      throw new IOException(
          "s3proxy: "
              + method
              + " "
              + uri
              + " -> "
              + response.statusCode()
              + " "
              + response.body());
    }
    return response.headers().firstValue("etag").orElse(null);
  }

  private HttpResponse<String> exchange(HttpRequest request) throws IOException {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + request.uri(), e);
    }
  }

  /** Polls until s3proxy answers any HTTP status (it listens only once it is ready). */
  private void awaitAnswer() throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IOException(
            "s3proxy exited with " + process.exitValue() + " before it answered: " + logTail());
      }
      try {
        exchange(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(5)).GET().build());
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "s3proxy did not answer at "
                  + endpoint
                  + " within "
                  + START_TIMEOUT
                  + ": "
                  + logTail());
        }
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for s3proxy", e);
      }
    }
  }

  private String logTail() {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.substring(Math.max(0, text.length() - 2000)).replace('\n', ' ');
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** The jar: the system property, else {@code jverity-testkit/target/s3proxy/} up from here. */
  static Path jar() {
    String set = System.getProperty(JAR_PROPERTY);
    if (set != null && !set.isBlank()) {
      return Path.of(set);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("jverity-testkit/target/s3proxy").resolve(JAR);
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new UncheckedIOException(
        new IOException(
            JAR
                + " not found in jverity-testkit/target/s3proxy/ above "
                + Path.of("").toAbsolutePath()
                + ": build with Maven (the testkit module copies it there), or set -D"
                + JAR_PROPERTY));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String encode(String segment) {
    StringBuilder s = new StringBuilder();
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        s.append((char) c);
      } else {
        s.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
      }
    }
    return s.toString();
  }

  private static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
