package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * A data or hash file truncated under a running {@code open}: reads past the new end get EIO (never
 * unverified bytes) and reads that still fit keep working, as before; and now the log says so once
 * per file, naming the export, the file and the sizes, {@code status} says {@code truncated} with
 * the counts, and {@code jverity_nbd_device_errors_total{kind="truncated"}} moves.
 */
class TruncatedUnderServerTest {
  private static final int BLOCKS = 2000;
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdsh").require();
    Tool.of("nbdcopy").require();
  }

  private HostedServer open(FormattedImage disk) throws Exception {
    return HostedServer.start(
        dir,
        "open",
        disk.data().toString(),
        "disk",
        disk.hash().toString(),
        disk.root(),
        "--port",
        "0",
        "--metrics-port",
        "0");
  }

  /** Data block {@code block} as the client reads it, hex; null when the read fails. */
  private static String readBlock(String uri, long block) throws Exception {
    ToolRun r =
        Clients.run("nbdsh", "-u", uri, "-c", "print(h.pread(4096, " + block * 4096 + ").hex())");
    return r.exitCode() == 0 ? r.stdout().strip() : null;
  }

  private static String block(FormattedImage disk, byte[] original, long block) {
    return HexFormat.of()
        .formatHex(Arrays.copyOfRange(original, (int) block * 4096, (int) (block + 1) * 4096));
  }

  private static void truncate(Path file, long size) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(size);
    }
  }

  @Test
  void aDataFileTruncatedWhileServedIsLoggedOnceCountedAndShown() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", BLOCKS);
    byte[] original = Files.readAllBytes(disk.data());
    try (HostedServer server = open(disk)) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(disk.sha256());
      assertThat(metrics(server))
          .contains("jverity_nbd_device_errors_total{export=\"disk\",kind=\"truncated\"} 0.0");

      truncate(disk.data(), 1000 * 4096L);
      assertThat(readBlock(uri, 1500)).as("past the new end: EIO").isNull();
      assertThat(readBlock(uri, 1999)).as("past the new end: EIO").isNull();
      assertThat(readBlock(uri, 500))
          .as("still inside: verified as before")
          .isEqualTo(block(disk, original, 500));

      String line =
          "jverity: export disk: data file "
              + disk.data().toAbsolutePath()
              + ": "
              + BLOCKS * 4096
              + " bytes expected, "
              + 1000 * 4096
              + " found (truncated while served: reads past byte "
              + 1000 * 4096
              + " fail)";
      assertThat(server.stderr().lines().filter(l -> l.contains("truncated")).toList())
          .as(server.stderr())
          .containsExactly(line);

      ToolRun status =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.exitCode()).as(status.toString()).isZero();
      assertThat(status.stdout())
          .contains("  status:        truncated\n")
          .containsPattern("  device errors: [1-9][0-9]* truncated, 0 other\n")
          .contains(
              "  truncated:     data file "
                  + disk.data().toAbsolutePath()
                  + ": "
                  + BLOCKS * 4096
                  + " bytes expected, "
                  + 1000 * 4096
                  + " found\n");

      Matcher m =
          Pattern.compile(
                  "jverity_nbd_device_errors_total\\{export=\"disk\",kind=\"truncated\"} ([0-9.]+)")
              .matcher(metrics(server));
      assertThat(m.find()).isTrue();
      assertThat(Double.parseDouble(m.group(1))).isGreaterThanOrEqualTo(2);
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void aHashFileTruncatedWhileServedIsLoggedAndShownToo() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", BLOCKS);
    long hashSize = Files.size(disk.hash());
    try (HostedServer server = open(disk)) {
      String uri = server.line();
      truncate(disk.hash(), 2 * 4096L); // the superblock and the top block: no level-0 block left
      assertThat(readBlock(uri, 0)).as("its level-0 hash block is gone: EIO").isNull();

      assertThat(server.stderr())
          .contains(
              "jverity: export disk: hash file "
                  + disk.hash().toAbsolutePath()
                  + ": "
                  + hashSize
                  + " bytes expected, 8192 found (truncated while served");
      ToolRun status =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.stdout())
          .contains("  status:        truncated\n", "  truncated:     hash file ");
      assertThat(metrics(server))
          .containsPattern(
              "jverity_nbd_device_errors_total\\{export=\"disk\",kind=\"truncated\"} [1-9]");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  /** The body of the server's /metrics, at the address it logged. */
  private static String metrics(HostedServer server) throws Exception {
    Matcher m = Pattern.compile("metrics: (http://\\S+)").matcher(server.stderr());
    assertThat(m.find()).as(server.stderr()).isTrue();
    return new String(URI.create(m.group(1)).toURL().openStream().readAllBytes());
  }
}
