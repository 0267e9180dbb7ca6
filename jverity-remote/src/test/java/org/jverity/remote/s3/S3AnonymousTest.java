package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.remote.Origin;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;
import org.jverity.remote.http.HttpTransport;
import org.jverity.testkit.S3Server;

/** No keys anywhere: requests go unsigned, and a server that checks nothing serves them. */
class S3AnonymousTest {
  @TempDir Path dir;
  @TempDir Path home;

  @Test
  void publicObjectIsReadUnsigned() throws IOException {
    byte[] data = new byte[20_000];
    new Random(11).nextBytes(data);
    try (S3Server s3 = S3Server.startAnonymous(dir)) {
      s3.createBucket("public");
      s3.put("public", "k.img", Files.write(dir.resolve("k"), data));
      RemoteOptions options = RemoteOptions.DEFAULTS.withS3Endpoint(s3.endpoint().toString());
      AwsEnvironment env = new AwsEnvironment(Map.of("AWS_REGION", "eu-north-1"), home);
      assertThat(env.credentials()).isNull();

      try (HttpTransport transport = new HttpTransport(options);
          Origin origin =
              S3Origin.open(
                  "s3://public/k.img",
                  options,
                  transport,
                  new RemoteStats(),
                  env,
                  Clock.systemUTC())) {
        ByteBuffer dst = ByteBuffer.allocate(data.length);
        origin.fetch(0, dst);
        assertThat(dst.array()).isEqualTo(data);
      }
    }
  }
}
