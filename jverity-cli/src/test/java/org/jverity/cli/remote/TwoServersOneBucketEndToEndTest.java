package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.ServerProcess;
import org.jverity.testkit.NbdClients;

/**
 * Scale-out: two stateless jverity servers, each with its own cache directory, serve the same image
 * from one bucket to two clients copying at once; both copies are the image, and each server's
 * {@code status --json} shows the origin traffic it made itself (neither shares the other's cache).
 */
class TwoServersOneBucketEndToEndTest {
  private static final int BLOCKS = 1024; // 4 MiB

  @TempDir Path dir;

  @Test
  void twoServersOverOneBucketServeTwoClientsAtOnce() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", BLOCKS);
    String expected = NbdClients.sha256(image.data());
    try (TestBucket s3 = TestBucket.start(dir)) {
      String data = s3.put("fleet/disk.img", image.data());
      String hash = s3.put("fleet/disk.hash", image.hash());
      try (ServerProcess a = server(s3, "a", data, hash, image.root());
          ServerProcess b = server(s3, "b", data, hash, image.root())) {
        String uriA = a.line();
        String uriB = b.line();
        assertThat(uriA).isNotEqualTo(uriB);
        CompletableFuture<String> copyA = CompletableFuture.supplyAsync(() -> copy(uriA));
        CompletableFuture<String> copyB = CompletableFuture.supplyAsync(() -> copy(uriB));
        assertThat(copyA.join()).as("client of server a").isEqualTo(expected);
        assertThat(copyB.join()).as("client of server b").isEqualTo(expected);

        for (ServerProcess s : new ServerProcess[] {a, b}) {
          Map<String, Object> remote = s.remote("disk");
          assertThat((Long) remote.get("requests")).as("%s", remote).isPositive();
          assertThat((Long) remote.get("bytes"))
              .as("each server fetched the whole image itself: %s", remote)
              .isGreaterThanOrEqualTo(Files.size(image.data()));
          assertThat((Long) remote.get("cacheMisses")).as("%s", remote).isPositive();
          assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
          assertThat(remote.get("devices").toString())
              .contains("fleet/disk.img", "fleet/disk.hash");
        }
        assertThat(dir.resolve("cache-a/index")).exists();
        assertThat(dir.resolve("cache-b/index")).exists();
        assertThat(a.terminate()).as(a.stderr()).isZero();
        assertThat(b.terminate()).as(b.stderr()).isZero();
      }
    }
  }

  private ServerProcess server(TestBucket s3, String name, String data, String hash, String root)
      throws Exception {
    return ServerProcess.start(
        dir.resolve("server-" + name),
        s3.environment(),
        "open",
        data,
        "disk",
        hash,
        root,
        "--port",
        "0",
        "--s3-endpoint",
        s3.endpoint(),
        "--cache-dir",
        dir.resolve("cache-" + name).toString());
  }

  private static String copy(String uri) {
    return NbdClients.sha256OfCopy(uri);
  }
}
