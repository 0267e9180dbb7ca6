package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Tool;

/**
 * {@code open --error-as-corruption} (veritysetup 2.8, the kernel's {@code restart_on_error}): with
 * {@code --restart-on-corruption}, a read that meets an I/O error of the data file (here: the file
 * truncated under the server) stops the server as a corruption does; without it the read fails with
 * EIO and serving goes on. {@code status} shows the table flag.
 */
class ErrorAsCorruptionServingTest {
  private static final int BLOCKS = 2000;
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdsh").require();
  }

  private HostedServer open(FormattedImage disk, String... modes) throws Exception {
    String[] head = {
      "open",
      disk.data().toString(),
      "disk",
      disk.hash().toString(),
      disk.root(),
      "--port",
      "0",
      "--json"
    };
    String[] args = Arrays.copyOf(head, head.length + modes.length);
    System.arraycopy(modes, 0, args, head.length, modes.length);
    return HostedServer.start(dir, args);
  }

  /** Data block {@code block} as the client reads it, hex; null when the read fails. */
  private static String readBlock(String uri, long block) throws Exception {
    ToolRun r =
        Clients.run("nbdsh", "-u", uri, "-c", "print(h.pread(4096, " + block * 4096 + ").hex())");
    return r.exitCode() == 0 ? r.stdout().strip() : null;
  }

  private static void truncate(Path file, long size) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(size);
    }
  }

  private ToolRun status(boolean json) {
    return json
        ? Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString(), "--json")
        : Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
  }

  @Test
  void anIoErrorUnderRestartOnCorruptionStopsTheServerAsACorruption() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", BLOCKS);
    try (HostedServer server = open(disk, "--restart-on-corruption", "--error-as-corruption")) {
      String uri = (String) JsonCheck.object(server.line()).get("uri");
      assertThat(status(false).stdout())
          .contains("  flags:         restart_on_corruption restart_on_error\n");
      Map<String, Object> json = JsonCheck.object(status(true).stdout());
      assertThat(json.toString()).contains("restart_on_error");

      truncate(disk.data(), 1000 * 4096L);
      assertThat(readBlock(uri, 1500)).as("past the new end").isNull();
      assertThat(server.waitFor()).as(server.stderr()).isEqualTo(ExitCode.RESTART);
      assertThat(server.stderr())
          .contains(
              "jverity: export disk: data block 1500 could not be read (error_as_corruption):"
                  + " restart_on_corruption, stopping the server\n");
    }
  }

  @Test
  void withoutItTheSameErrorIsAnIoErrorAndServingGoesOn() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", BLOCKS);
    byte[] original = Files.readAllBytes(disk.data());
    try (HostedServer server = open(disk, "--restart-on-corruption")) {
      String uri = (String) JsonCheck.object(server.line()).get("uri");
      assertThat(status(false).stdout()).contains("  flags:         restart_on_corruption\n");
      truncate(disk.data(), 1000 * 4096L);
      assertThat(readBlock(uri, 1500)).as("past the new end: EIO").isNull();
      assertThat(readBlock(uri, 500))
          .isEqualTo(
              HexFormat.of().formatHex(Arrays.copyOfRange(original, 500 * 4096, 501 * 4096)));
      assertThat(status(false).stdout()).contains("  corruptions:   0\n");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }
}
