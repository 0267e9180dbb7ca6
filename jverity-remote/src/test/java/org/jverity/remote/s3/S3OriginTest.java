package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.remote.ObjectChangedException;
import org.jverity.remote.Origin;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;
import org.jverity.remote.http.HttpOrigin;
import org.jverity.remote.http.HttpTransport;
import org.jverity.testkit.S3Server;

/**
 * {@code s3://} objects read through {@link S3Origin} from s3proxy checking SigV4, the keys found
 * by the credential chain in a home of the test's own.
 */
class S3OriginTest {
  private static final String BUCKET = "images";

  @TempDir static Path dir;
  static S3Server s3;
  static HttpTransport transport;
  static RemoteOptions options;

  @TempDir Path home;

  @BeforeAll
  static void start() throws IOException {
    s3 = S3Fixture.start(dir);
    s3.createBucket(BUCKET);
    options = RemoteOptions.DEFAULTS.withS3Endpoint(s3.endpoint().toString());
    transport = new HttpTransport(options);
  }

  @AfterAll
  static void stop() throws Exception {
    transport.close();
    s3.close();
  }

  private AwsEnvironment homeWithSecret(String secret) throws IOException {
    Files.createDirectories(home.resolve(".aws"));
    Files.writeString(
        home.resolve(".aws/credentials"),
        "[default]\naws_access_key_id = "
            + S3Fixture.IDENTITY
            + "\naws_secret_access_key = "
            + secret
            + "\n");
    return new AwsEnvironment(Map.of(), home);
  }

  private static byte[] upload(String key, int size, long seed) throws IOException {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    Path file = Files.write(dir.resolve("upload-" + seed), data);
    s3.put(BUCKET, key, file);
    return data;
  }

  private static byte[] fetch(Origin origin, long offset, int length) throws IOException {
    ByteBuffer dst = ByteBuffer.allocate(length);
    origin.fetch(offset, dst);
    assertThat(dst.hasRemaining()).isFalse();
    return dst.array();
  }

  @Test
  void rangeReadsAreByteIdentical() throws IOException {
    String key = "fleet/2026 q4/root+é.img";
    byte[] data = upload(key, 1 << 20, 1);
    RemoteStats stats = new RemoteStats();

    try (Origin origin =
        S3Origin.open(
            "s3://" + BUCKET + "/" + key,
            options,
            transport,
            stats,
            homeWithSecret(S3Fixture.CREDENTIAL),
            Clock.systemUTC())) {
      assertThat(origin.description()).isEqualTo("s3://images/fleet/2026 q4/root+é.img");
      assertThat(origin.identity().size()).isEqualTo(data.length);
      assertThat(origin.identity().etag()).isNotBlank();
      assertThat(fetch(origin, 12_345, 100_000))
          .isEqualTo(Arrays.copyOfRange(data, 12_345, 112_345));
      assertThat(fetch(origin, data.length - 4096, 4096))
          .isEqualTo(Arrays.copyOfRange(data, data.length - 4096, data.length));
    }
    assertThat(stats.requests.sum()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void sessionTokenIsSignedAndAccepted() throws IOException {
    byte[] data = upload("session.img", 8192, 2);
    AwsEnvironment env =
        new AwsEnvironment(
            Map.of(
                "AWS_ACCESS_KEY_ID", S3Fixture.IDENTITY,
                "AWS_SECRET_ACCESS_KEY", S3Fixture.CREDENTIAL,
                "AWS_SESSION_TOKEN", "session-token-for-test"),
            home);

    try (Origin origin =
        S3Origin.open(
            "s3://images/session.img",
            options,
            transport,
            new RemoteStats(),
            env,
            Clock.systemUTC())) {
      assertThat(fetch(origin, 0, 8192)).isEqualTo(data);
    }
  }

  @Test
  void wrongSecretIsOneLineNamingS3sCodeAndNoSecret() throws IOException {
    upload("refused.img", 4096, 3);
    AwsEnvironment env = homeWithSecret("wrong-secret-value");

    assertThatThrownBy(
            () ->
                S3Origin.open(
                    "s3://images/refused.img",
                    options,
                    transport,
                    new RemoteStats(),
                    env,
                    Clock.systemUTC()))
        .isInstanceOf(OriginException.class)
        .satisfies(
            e -> {
              assertThat(((OriginException) e).status()).isEqualTo(403);
              assertThat(e.getMessage())
                  .containsAnyOf("SignatureDoesNotMatch", "InvalidAccessKeyId")
                  .contains("s3://images/refused.img")
                  .contains("credentials: profile default")
                  .doesNotContain("wrong-secret-value")
                  .doesNotContain("\n")
                  .doesNotContain("Exception");
            });
  }

  @Test
  void refreshReadsRotatedKeysFromTheCredentialsFile() throws IOException {
    byte[] data = upload("rotated.img", 16384, 4);
    AwsEnvironment env = homeWithSecret("old-secret");
    S3Settings settings = S3Settings.resolve(env, options.s3Endpoint(), BUCKET, env.credentials());
    SigV4Authorizer auth =
        new SigV4Authorizer(env, settings.region(), env.credentials(), Clock.systemUTC());
    var uri = settings.objectUri(S3Location.parse("s3://images/rotated.img"));

    assertThatThrownBy(
            () -> HttpOrigin.open(uri, "rotated", transport, options, new RemoteStats(), auth))
        .isInstanceOf(OriginException.class);
    assertThat(auth.refresh()).isFalse();

    homeWithSecret(S3Fixture.CREDENTIAL);
    assertThat(auth.refresh()).isTrue();
    try (Origin origin =
        HttpOrigin.open(uri, "rotated", transport, options, new RemoteStats(), auth)) {
      assertThat(fetch(origin, 100, 1000)).isEqualTo(Arrays.copyOfRange(data, 100, 1100));
    }
  }

  @Test
  void replacedObjectIsObjectChanged() throws IOException {
    byte[] data = upload("replaced.img", 65536, 5);

    try (Origin origin =
        S3Origin.open(
            "s3://images/replaced.img",
            options,
            transport,
            new RemoteStats(),
            homeWithSecret(S3Fixture.CREDENTIAL),
            Clock.systemUTC())) {
      assertThat(fetch(origin, 0, 4096)).isEqualTo(Arrays.copyOf(data, 4096));
      String before = origin.identity().etag();
      upload("replaced.img", 65536, 6);

      assertThatThrownBy(() -> fetch(origin, 4096, 4096))
          .isInstanceOf(ObjectChangedException.class)
          .hasMessageContaining(before)
          .hasMessageContaining("s3://images/replaced.img")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void malformedUrlIsOneLine() {
    assertThatThrownBy(
            () ->
                S3Origin.open(
                    "s3://images/",
                    options,
                    transport,
                    new RemoteStats(),
                    new AwsEnvironment(Map.of(), home),
                    Clock.systemUTC()))
        .isInstanceOf(OriginException.class)
        .hasMessage("S3 URL names a bucket, not an object (s3://bucket/key): s3://images/");
  }
}
