package org.jverity.cli.remote;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.jverity.remote.s3.AwsCredentials;
import org.jverity.remote.s3.SigV4;
import org.jverity.testkit.S3Server;

/**
 * s3proxy with SigV4 on and keys of the test's own, one bucket, and the environment a child jverity
 * reaches it with: those keys in {@code AWS_*}, a region, and shared files and a home that do not
 * exist (nothing of the machine's ~/.aws is read). Uploads are signed by jverity's {@link SigV4}.
 */
final class TestBucket implements AutoCloseable {
  static final String IDENTITY = "jverity-e2e-identity";
  static final String CREDENTIAL = "jverity-e2e-credential";
  static final String REGION = "us-east-1";
  static final String BUCKET = "images";

  final S3Server server;
  private final Path dir;

  private TestBucket(S3Server server, Path dir) {
    this.server = server;
    this.dir = dir;
  }

  static TestBucket start(Path dir) throws IOException {
    AwsCredentials keys = new AwsCredentials(IDENTITY, CREDENTIAL, null, "test");
    SigV4 signer = new SigV4(REGION);
    S3Server s3 =
        S3Server.start(
            dir.resolve("s3proxy"),
            IDENTITY,
            CREDENTIAL,
            (method, uri, headers, payloadHash) ->
                signer.headers(
                    keys, Clock.systemUTC().instant(), method, uri, headers, payloadHash));
    try {
      s3.createBucket(BUCKET);
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
    return new TestBucket(s3, dir);
  }

  /** Uploads {@code file} as {@code key}; its {@code s3://} location. */
  String put(String key, Path file) throws IOException {
    server.put(BUCKET, key, file);
    return "s3://" + BUCKET + "/" + key;
  }

  /** {@code --s3-endpoint}'s value. */
  String endpoint() {
    return server.endpoint().toString();
  }

  /** What a child jverity is given: the test keys, the region, no readable ~/.aws. */
  Map<String, String> environment() {
    Path nowhere = dir.resolve("no-home");
    return Map.of(
        "AWS_ACCESS_KEY_ID",
        IDENTITY,
        "AWS_SECRET_ACCESS_KEY",
        CREDENTIAL,
        "AWS_REGION",
        REGION,
        "AWS_SHARED_CREDENTIALS_FILE",
        nowhere.resolve(".aws/credentials").toString(),
        "AWS_CONFIG_FILE",
        nowhere.resolve(".aws/config").toString(),
        "HOME",
        nowhere.toString());
  }

  @Override
  public void close() {
    server.close();
  }
}
