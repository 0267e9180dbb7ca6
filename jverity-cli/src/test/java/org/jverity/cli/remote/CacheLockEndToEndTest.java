package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.TestImage;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;

/**
 * Issue 27 item 15: a cache directory in use is refused naming the process that holds it (before:
 * "in use by another cache", no holder), and a server stopped with SIGTERM and started again at
 * once over the same directory starts (before, within ~1.5 s, exit 4: the old one still held the
 * lock while it shut down).
 */
class CacheLockEndToEndTest {
  @TempDir Path dir;

  @Test
  void aHeldDirectoryNamesItsHolderAndAStopThenStartReusesIt() throws Exception {
    TestImage image = TestImage.create(dir, "disk", 256);
    String expected = NbdClients.sha256(image.data());
    Path cache = dir.resolve("cache");
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), Nginx.Faults.DEFAULTS)) {
      Files.copy(image.data(), nginx.www().resolve("disk.img"));
      Files.copy(image.hash(), nginx.www().resolve("disk.hash"));
      String data = nginx.url("disk.img").toString();
      String hash = nginx.url("disk.hash").toString();
      try (ChildServer first = server("1", data, hash, image.root(), cache)) {
        assertThat(NbdClients.sha256OfCopy(first.line())).isEqualTo(expected);
        long pid = first.pid();
        ToolRun refused =
            Jverity.run(
                "read",
                "--cache-dir",
                cache.toString(),
                "--length",
                "4096",
                "-o",
                dir.resolve("out").toString(),
                data,
                hash,
                image.root());
        assertThat(refused.exitCode()).as("%s", refused).isEqualTo(ExitCode.IO_ERROR);
        assertThat(refused.stderr())
            .isEqualTo(
                "jverity: cache directory "
                    + cache
                    + ": in use by another cache (process "
                    + pid
                    + ")\n");

        first.signalTerm(); // and at once:
        try (ChildServer second = server("2", data, hash, image.root(), cache)) {
          assertThat(NbdClients.sha256OfCopy(second.line()))
              .as("the restart serves; its stderr: %s", second.stderr())
              .isEqualTo(expected);
          assertThat(first.waitFor()).as(first.stderr()).isZero();
          assertThat(second.terminate()).as(second.stderr()).isZero();
        }
      }
    }
  }

  private ChildServer server(String run, String data, String hash, String root, Path cache)
      throws Exception {
    return ChildServer.start(
        dir.resolve("server-" + run),
        Map.of(),
        "open",
        data,
        "disk",
        hash,
        root,
        "--port",
        "0",
        "--cache-dir",
        cache.toString());
  }
}
