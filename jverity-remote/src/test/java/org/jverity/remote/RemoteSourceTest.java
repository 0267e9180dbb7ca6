package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.remote.s3.AwsEnvironment;
import org.jverity.remote.s3.S3Fixture;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.S3Server;
import org.jverity.testkit.Veritysetup;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * The whole remote chain as a command uses it: URLs opened by {@link RemoteSource} into devices
 * over a real nginx (HTTP, HTTPS) and a real s3proxy (SigV4), under the core's opener and verified
 * reader, reading an image veritysetup made.
 */
class RemoteSourceTest {
  static final int SIZE = 6 << 20;

  @TempDir Path tmp;
  byte[] content;
  Path data;
  Path hash;
  String root;

  @BeforeEach
  void image() throws IOException {
    content = new byte[SIZE];
    new Random(16).nextBytes(content);
    data = tmp.resolve("data.img");
    hash = tmp.resolve("hash.img");
    Files.write(data, content);
    String out = Veritysetup.run("format", data.toString(), hash.toString()).ok().out();
    Matcher m = Pattern.compile("Root hash:\\s+([0-9a-f]+)").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    root = m.group(1);
  }

  byte[] readAll(RemoteSource source, String dataUrl, String hashUrl, long[] corruptions)
      throws Exception {
    try (VerifiedImage image =
        VerityImage.open(source, dataUrl, hashUrl, ParamOverrides.NONE, root, null, RootCheck.NONE)
            .reader(new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
      VerifiedReader r = image.reader();
      byte[] all = new byte[SIZE];
      Random rnd = new Random(3);
      for (int i = 0; i < 64; i++) { // random reads first, then the whole image
        int length = 4096 * (1 + rnd.nextInt(64));
        long offset = 4096L * rnd.nextInt((SIZE - length) / 4096 + 1);
        byte[] b = new byte[length];
        r.read(offset, b, 0, length);
        assertThat(b).isEqualTo(Arrays.copyOfRange(content, (int) offset, (int) offset + length));
      }
      r.read(0, all, 0, SIZE);
      corruptions[0] = r.corruptionCount();
      return all;
    }
  }

  Nginx nginx() throws IOException {
    // /corrupt/ flips a bit of the first GET only: the open's size probe, which brings the first
    // chunk into the cache, so the flipped block is read from the cache and healed by the recheck
    Nginx n = Nginx.start(tmp.resolve("nginx"), Nginx.Faults.DEFAULTS.withCorrupt(1000, 1000));
    try {
      Files.copy(data, n.www().resolve("data.img"));
      Files.copy(hash, n.www().resolve("hash.img"));
    } catch (IOException e) {
      n.close();
      throw e;
    }
    return n;
  }

  @Test
  void anImageOverHttpReadsVerifiedAndIdenticalInFewRequests() throws Exception {
    try (Nginx n = nginx();
        RemoteSource source =
            new RemoteSource(RemoteOptions.DEFAULTS.withCache(tmp.resolve("cache"), 64 << 20))) {
      long[] corruptions = new long[1];
      byte[] all =
          readAll(source, n.url("data.img").toString(), n.url("hash.img").toString(), corruptions);
      assertThat(all).isEqualTo(content);
      assertThat(corruptions[0]).isZero();
      long requests = source.stats().requests.sum();
      assertThat(requests).isPositive().isEqualTo(n.accessLog().size());
      // coalesced: far fewer requests than the 1,536 data blocks and their hash blocks
      assertThat(requests).isLessThan(200);
      assertThat(source.stats().cacheHits.sum()).isPositive();
    }
  }

  @Test
  void overHttpsTrustingOnlyTheGivenCa() throws Exception {
    try (Nginx n = nginx();
        RemoteSource source =
            new RemoteSource(RemoteOptions.DEFAULTS.withCaCert(n.certificate()))) {
      long[] corruptions = new long[1];
      assertThat(
              readAll(
                  source,
                  n.httpsUrl("data.img").toString(),
                  n.httpsUrl("hash.img").toString(),
                  corruptions))
          .isEqualTo(content);
    }
  }

  @Test
  void aBitFlippedInTransitIsNeverReturnedTheRecheckFetchesItAgain() throws Exception {
    try (Nginx n = nginx();
        RemoteSource source = new RemoteSource(RemoteOptions.DEFAULTS)) {
      long[] corruptions = new long[1];
      byte[] all =
          readAll(
              source,
              n.url("corrupt/data.img").toString(),
              n.url("hash.img").toString(),
              corruptions);
      assertThat(all).isEqualTo(content);
      assertThat(corruptions[0]).isZero(); // the fresh copy verified: nothing to report
      assertThat(source.stats().rereads.sum()).isPositive();
    }
  }

  @Test
  void anImageInS3ReadsVerifiedAndIdentical() throws Exception {
    try (S3Server s3 = S3Fixture.start(tmp.resolve("s3"))) {
      s3.createBucket("images");
      s3.put("images", "v7/data.img", data);
      s3.put("images", "v7/hash.img", hash);
      AwsEnvironment env =
          new AwsEnvironment(
              Map.of(
                  "AWS_ACCESS_KEY_ID", S3Fixture.IDENTITY,
                  "AWS_SECRET_ACCESS_KEY", S3Fixture.CREDENTIAL,
                  "AWS_ENDPOINT_URL", s3.endpoint().toString()),
              tmp.resolve("home"));
      try (RemoteSource source =
          new RemoteSource(RemoteOptions.DEFAULTS.withCache(tmp.resolve("cache"), 32 << 20), env)) {
        long[] corruptions = new long[1];
        assertThat(
                readAll(source, "s3://images/v7/data.img", "s3://images/v7/hash.img", corruptions))
            .isEqualTo(content);
        assertThat(corruptions[0]).isZero();
      }
    }
  }
}
