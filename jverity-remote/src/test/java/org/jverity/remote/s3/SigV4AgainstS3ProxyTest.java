package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.S3Server;

/**
 * The signer against s3proxy's SigV4 verifier, on the JDK's client directly: uploads (the fixture
 * signs them with {@link SigV4}), ranged GETs signed by {@link SigV4Authorizer}, and a wrong
 * secret.
 */
class SigV4AgainstS3ProxyTest {
  @TempDir static Path dir;
  static S3Server s3;
  static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start() throws IOException {
    s3 = S3Fixture.start(dir);
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  @Test
  void signedRangeGetOfAKeyNeedingEncodingIsByteIdentical() throws Exception {
    byte[] data = new byte[300_000];
    new Random(7).nextBytes(data);
    Path file = Files.write(dir.resolve("obj"), data);
    s3.createBucket("signer");
    s3.put("signer", "dir/a b+c~é.img", file);

    URI uri = s3.objectUri("signer", "dir/a b+c~é.img");
    HttpResponse<byte[]> r = get(S3Fixture.authorizer(s3.credential()), uri, "bytes=1000-200999");

    assertThat(r.statusCode()).isEqualTo(206);
    assertThat(r.headers().firstValue("content-range")).hasValue("bytes 1000-200999/300000");
    assertThat(r.body()).isEqualTo(Arrays.copyOfRange(data, 1000, 201000));
  }

  @Test
  void wrongSecretIsRefused() throws Exception {
    Path file = Files.write(dir.resolve("small"), new byte[] {1, 2, 3});
    s3.createBucket("refused");
    s3.put("refused", "k", file);

    HttpResponse<byte[]> r =
        get(S3Fixture.authorizer("not-the-secret"), s3.objectUri("refused", "k"), "bytes=0-0");

    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(new String(r.body())).contains("SignatureDoesNotMatch");
  }

  private static HttpResponse<byte[]> get(SigV4Authorizer auth, URI uri, String range)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).GET().header("range", range);
    auth.headers("GET", uri, Map.of("range", range)).forEach(b::header);
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
