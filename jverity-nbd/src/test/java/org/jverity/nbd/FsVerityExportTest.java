package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.fsverity.VerifiedFile;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * An fs-verity file served over NBD with no code of its own: a {@link VerifiedFile} is a {@code
 * VerifiedSource}, so it is an {@link Export}. The tree and digest come from fsverity-utils ({@code
 * fsverity digest}), the bytes are read back by nbdcopy and by the raw client.
 */
class FsVerityExportTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int BS = 4096;
  private static final int SIZE = 300 * BS + 1234; // the last block is partial

  @TempDir Path dir;

  /** Writes a seeded random file and its tree with fsverity; returns its digest ("sha256:HEX"). */
  private String makeFile(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes);
    var r =
        Tool.of("fsverity")
            .timeout(TIMEOUT)
            .run(
                "digest",
                file.toString(),
                "--hash-alg=sha256",
                "--block-size=" + BS,
                "--out-merkle-tree=" + tree(file))
            .ok();
    return r.out().strip().split(" ")[0];
  }

  private static Path tree(Path file) {
    return file.resolveSibling(file.getFileName() + ".merkle");
  }

  @Test
  @DisplayName(
      "nbdcopy reads an fs-verity file served over NBD back byte for byte; nbdinfo shows its size and block size")
  void nbdcopyReadsTheFile() throws Exception {
    byte[] bytes = new byte[SIZE];
    new Random(6).nextBytes(bytes);
    Path file = dir.resolve("app.bin");
    String digest = makeFile(file, bytes);

    try (VerifiedFile source = VerifiedFile.open(file, tree(file), digest);
        NbdServer server =
            new NbdServer(
                List.of(Export.of("app", source)), ServerLimits.DEFAULTS, null, NbdEvents.NONE)) {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      String uri = NbdUri.tcp(at, "app");

      var copy = Tool.of("nbdcopy").timeout(TIMEOUT).run(uri, "-").ok();
      String info = Tool.of("nbdinfo").timeout(TIMEOUT).run("--json", uri).ok().out();

      assertThat(copy.stdout()).isEqualTo(bytes);
      assertThat(info).containsPattern("\"export-size\"\\s*:\\s*" + SIZE + "\\b");
      assertThat(info).containsPattern("\"block_size_preferred\"\\s*:\\s*" + BS + "\\b");
    }
  }

  @Test
  @DisplayName(
      "a block of the file changed after its digest: reads before it verify, a read of it gets EIO")
  void aChangedBlockGetsEio() throws Exception {
    byte[] bytes = new byte[SIZE];
    new Random(7).nextBytes(bytes);
    Path file = dir.resolve("changed.bin");
    String digest = makeFile(file, bytes);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(100L * BS + 17);
      f.write(bytes[100 * BS + 17] ^ 0x01);
    }

    try (VerifiedFile source =
            VerifiedFile.open(
                file.toAbsolutePath(),
                tree(file),
                digest,
                VerifiedFile.Parameters.DEFAULTS,
                ReaderOptions.DEFAULTS);
        NbdServer server =
            new NbdServer(
                List.of(Export.of("", source)), ServerLimits.DEFAULTS, null, NbdEvents.NONE)) {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient client = RawNbdClient.connect(at, false)) {
        assertThat(client.size).isEqualTo(SIZE);
        assertThat(client.read(0, 100 * BS)).isEqualTo(Arrays.copyOf(bytes, 100 * BS));
        assertThat(client.read(299L * BS, BS + 1234))
            .isEqualTo(Arrays.copyOfRange(bytes, 299 * BS, SIZE));
        assertThatThrownBy(() -> client.read(99L * BS, 2 * BS)).hasMessageContaining("error 5");
      }
      assertThat(source.stats().corruptions()).isEqualTo(1);
    }
  }
}
