package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
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
    FormattedImage image = FormattedImage.create(dir, "disk", 256);
    String expected = NbdClients.sha256(image.data());
    Path cache = dir.resolve("cache");
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), Nginx.Faults.DEFAULTS)) {
      Files.copy(image.data(), nginx.www().resolve("disk.img"));
      Files.copy(image.hash(), nginx.www().resolve("disk.hash"));
      String data = nginx.url("disk.img").toString();
      String hash = nginx.url("disk.hash").toString();
      try (ServerProcess first = server("1", data, hash, image.root(), cache)) {
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
        try (ServerProcess second = server("2", data, hash, image.root(), cache)) {
          assertThat(NbdClients.sha256OfCopy(second.line()))
              .as("the restart serves; its stderr: %s", second.stderr())
              .isEqualTo(expected);
          assertThat(first.waitFor()).as(first.stderr()).isZero();
          assertThat(second.terminate()).as(second.stderr()).isZero();
        }
      }
    }
  }

  /**
   * Issue 27 item 9: an {@code index} that is a symbolic link is neither followed nor truncated (a
   * 1,000,000-byte file it named became a 4,224-byte index); each start serves without the cache,
   * saying so in one line, rather than fail (a supervisor would loop).
   */
  @Test
  void aSymlinkedIndexIsLeftAndEachStartServesWithoutTheCacheSayingSoOnce() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 256);
    String expected = NbdClients.sha256(image.data());
    Path cache = Files.createDirectories(dir.resolve("cache"));
    byte[] victimBytes = new byte[1_000_000];
    Arrays.fill(victimBytes, (byte) 7);
    Path victim = Files.write(dir.resolve("victim"), victimBytes);
    Files.createSymbolicLink(cache.resolve("index"), victim);
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), Nginx.Faults.DEFAULTS)) {
      Files.copy(image.data(), nginx.www().resolve("disk.img"));
      Files.copy(image.hash(), nginx.www().resolve("disk.hash"));
      String data = nginx.url("disk.img").toString();
      String hash = nginx.url("disk.hash").toString();
      for (String run : List.of("1", "2")) {
        try (ServerProcess s = server(run, data, hash, image.root(), cache)) {
          assertThat(NbdClients.sha256OfCopy(s.line())).isEqualTo(expected);
          assertThat(s.terminate()).as(s.stderr()).isZero();
          assertThat(s.messages().stream().filter(l -> l.contains("without the cache")))
              .as(s.stderr())
              .containsExactly(
                  "jverity: running without the cache directory "
                      + cache
                      + ": "
                      + cache.resolve("index")
                      + ": a symbolic link (expected: a regular file of the cache's own)");
        }
      }
    }
    assertThat(Files.readAllBytes(victim)).isEqualTo(victimBytes);
    assertThat(Files.isSymbolicLink(cache.resolve("index"))).isTrue();
  }

  private ServerProcess server(String run, String data, String hash, String root, Path cache)
      throws Exception {
    return ServerProcess.start(
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
