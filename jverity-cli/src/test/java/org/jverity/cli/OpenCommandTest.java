package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code jverity open} as a user runs it, in a child JVM, checked with the real NBD clients
 * (libnbd's nbdinfo, nbdcopy and nbdsh): the URI line, what clients see, the bytes served, the log,
 * {@code status}, SIGTERM, and corruption under --restart-on-corruption.
 */
class OpenCommandTest {
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdinfo").require();
    Tool.of("nbdcopy").require();
  }

  @Test
  void servesOverTcpToNbdinfoAndNbdcopyAndStopsCleanlyOnSigterm() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 300);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--description",
            "test disk")) {
      String uri = server.line();
      assertThat(uri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/disk");

      ToolRun info = Clients.run("nbdinfo", "--json", uri);
      assertThat(info.exitCode()).as(info.toString()).isZero();
      assertThat(info.stdout())
          .contains(
              "\"export-size\": " + 300 * 4096,
              "\"is_read_only\": true",
              "\"can_multi_conn\": true",
              "\"description\": \"test disk\"",
              "base:allocation");
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(image.sha256());

      ToolRun status =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.exitCode()).as(status.toString()).isZero();
      assertThat(status.stdout())
          .startsWith("disk is active.\n")
          .contains(
              "  type:          VERITY",
              "  status:        verified",
              "  root hash:     " + image.root(),
              "  uri:           " + uri,
              "  data device:   " + image.data().toAbsolutePath(),
              "  corruptions:   0");

      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(server.stderr())
          .containsPattern("(?m)^jverity: 127\\.0\\.0\\.1:[0-9]+ connected$")
          .containsPattern("(?m)^jverity: 127\\.0\\.0\\.1:[0-9]+ disconnected: .+$");
      assertThat(Files.exists(dir.resolve("run/disk.ctl"))).as("status socket removed").isFalse();
    }
    ToolRun gone = Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
    assertThat(gone.exitCode()).isEqualTo(ExitCode.INACTIVE);
    assertThat(gone.stderrLines())
        .hasSize(1)
        .first()
        .asString()
        .startsWith("jverity: disk is inactive");
  }

  @Test
  void servesOnAUnixSocketGivenAnIdentityAndRemovesTheSocketOnSigterm() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 64);
    Path socket = dir.resolve("nbd.sock");
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "",
            image.hash().toString(),
            image.identity(),
            "--socket",
            socket.toString())) {
      String uri = server.line();
      assertThat(uri).isEqualTo("nbd+unix:///?socket=" + socket.toAbsolutePath());
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(image.sha256());
      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(Files.exists(socket)).as("socket removed").isFalse();
    }
  }

  @Test
  void servesOneConnectionOnStdinForLibnbdsConnectCommand() throws Exception {
    Tool.of("nbdsh").require();
    FormattedImage image = FormattedImage.create(dir, "disk", 40);
    List<String> server =
        Clients.list(
            ServerProcess.javaCommand(),
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            "--root-hash-file",
            Files.writeString(dir.resolve("root"), image.root()).toString(),
            "--stdin");
    StringBuilder argv = new StringBuilder("[");
    for (String a : server) {
      argv.append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\"")).append("\",");
    }
    argv.append(']');
    String script =
        String.join(
            "\n",
            "import hashlib",
            "h.set_export_name('disk')",
            "h.connect_command(" + argv + ")",
            "size = h.get_size(); d = hashlib.sha256(); off = 0",
            "while off < size:",
            "    n = min(1 << 20, size - off); d.update(h.pread(n, off)); off += n",
            "print(size, h.is_read_only(), d.hexdigest())",
            "h.shutdown()");
    ToolRun r = Clients.run("nbdsh", "-c", script);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.stdout().strip()).isEqualTo(40 * 4096 + " True " + image.sha256());
  }

  @Test
  void jsonPrintsTheUriAsAnEventAndStatusGivesTheTextsFactsAsFields() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 64);
    image.corrupt(37);
    String runtime = dir.resolve("run").toString();
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--check-at-most-once",
            "--json")) {
      var event = JsonCheck.object(server.line());
      assertThat(event.keySet()).containsExactly("event", "export", "uri");
      assertThat(event).containsEntry("event", "listening").containsEntry("export", "disk");
      String uri = (String) event.get("uri");
      assertThat(uri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/disk");
      ToolRun copy =
          Clients.run("nbdcopy", uri, Files.createTempFile(dir, "copy", ".img").toString());
      assertThat(copy.exitCode()).as("block 37 fails the copy: %s", copy).isNotZero();

      // nbdcopy has exited, but the server sees its connection end a moment later: wait for that,
      // so the text and the JSON below are taken of the same counters.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!JsonCheck.stdout(Jverity.run("status", "disk", "--runtime-dir", runtime, "--json"))
              .get("connections")
              .equals(0L)
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      ToolRun text = Jverity.run("status", "disk", "--runtime-dir", runtime);
      ToolRun json = Jverity.run("status", "disk", "--runtime-dir", runtime, "--json");
      assertThat(json.exitCode()).as("%s", json).isZero();
      var m = JsonCheck.stdout(json);
      assertThat(m)
          .containsEntry("ok", true)
          .containsEntry("exitCode", 0L)
          .containsEntry("export", "disk")
          .containsEntry("status", "corrupted")
          .containsEntry("stopped", false)
          .containsEntry("uri", uri)
          .containsEntry("rootHash", image.root())
          .containsEntry("identity", image.identity())
          .containsEntry("dataDevice", image.data().toAbsolutePath().toString())
          .containsEntry("hashDevice", image.hash().toAbsolutePath().toString())
          .containsEntry("dataBlocks", 64L)
          .containsEntry("dataSize", 64L * 4096)
          .containsEntry("salt", "5a")
          .containsEntry("flags", List.of("check_at_most_once"))
          .containsEntry("ioClass", "best-effort");
      // every number the text shows, the same in JSON
      assertThat(text.stdout())
          .contains(
              "  status:        corrupted\n",
              "  size:          " + 64 * 8 + " sectors\n",
              "  hash offset:   " + (Long) m.get("hashStart") / 512 + " sectors\n",
              "  corruptions:   " + m.get("corruptions") + "\n",
              "  repaired:      " + m.get("repaired") + "\n",
              "  inline reads:  " + m.get("inlineReads") + "\n",
              "  pooled reads:  " + m.get("pooledReads") + "\n",
              "  connections:   " + m.get("connections") + "\n",
              "  corrupted:     data block 37 is corrupted\n");
      var cache = (java.util.Map<?, ?>) m.get("cache");
      assertThat(text.stdout())
          .contains(
              "  cache:         "
                  + cache.get("cachedBytes")
                  + " of "
                  + cache.get("capacityBytes")
                  + " bytes, "
                  + cache.get("hits")
                  + " hits, "
                  + cache.get("misses")
                  + " misses, "
                  + cache.get("evictions")
                  + " evictions\n");
      assertThat((Long) m.get("corruptions")).isPositive();
      // --check-at-most-once does not cover a block that failed: nbdcopy read it once
      assertThat(m.get("corruptedBlocks"))
          .isEqualTo(
              List.of(
                  java.util.Map.of(
                      "area", "data", "block", 37L, "position", 37L * 4096, "reads", 1L)));
      assertThat(m.get("deviceErrors")).isEqualTo(java.util.Map.of("truncated", 0L, "other", 0L));
      assertThat(text.stdout()).contains("  device errors: 0 truncated, 0 other\n");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
    JsonCheck.failure(Jverity.run("status", "disk", "--runtime-dir", runtime, "--json"));
  }

  @Test
  void underJsonAServerThatStopsOnCorruptionEndsItsStreamWithTheFailure() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 64);
    image.corrupt(37);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--restart-on-corruption",
            "--json")) {
      String uri = (String) JsonCheck.object(server.line()).get("uri");
      Clients.run("nbdcopy", uri, Files.createTempFile(dir, "copy", ".img").toString());
      int code = server.waitFor();
      assertThat(code).as(server.stderr()).isEqualTo(ExitCode.RESTART);
      String rest = server.restOfStdout();
      assertThat(rest.lines()).as(rest).hasSize(1);
      assertThat(JsonCheck.object(rest))
          .containsEntry("ok", false)
          .containsEntry("exitCode", (long) code)
          .containsKey("error");
    }
    ToolRun stdin =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--stdin",
            "--json");
    assertThat(JsonCheck.failure(stdin)).containsEntry("exitCode", (long) ExitCode.USAGE);
  }

  @Test
  void restartOnCorruptionFailsTheReadThenExitsWithItsCode() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 64);
    image.corrupt(37);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--restart-on-corruption")) {
      String uri = server.line();
      ToolRun copy =
          Clients.run("nbdcopy", uri, Files.createTempFile(dir, "copy", ".img").toString());
      assertThat(copy.exitCode()).as("the copy fails: %s", copy).isNotZero();
      assertThat(server.waitFor()).as(server.stderr()).isEqualTo(ExitCode.RESTART);
      assertThat(server.stderr())
          .contains(
              "jverity: export disk: data block 37 is corrupted\n",
              "jverity: export disk: data block 37 is corrupted: restart_on_corruption, stopping the server\n");
      assertThat(Files.exists(dir.resolve("run/disk.ctl"))).isFalse();
    }
  }

  /**
   * nbdkit's fuzzing seeds (jverity-nbd's test resources, copied from nbdkit) fed to {@code open
   * --stdin} as {@code nbdkit -s} is fed them: each run ends by itself with exit 0, the greeting
   * first, and the right bytes or EPERM where the seed reads or writes.
   */
  @Test
  void nbdkitsFuzzingSeedsReplayedThroughStdin() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 256);
    byte[] first = java.util.Arrays.copyOf(Files.readAllBytes(image.data()), 512);
    Path corpus = Path.of("..", "jverity-nbd", "src", "test", "resources", "nbd-corpus");
    String[] seeds = {
      "newstyle-cflags",
      "newstyle-cflags-exportname",
      "newstyle-cflags-exportname-read4",
      "newstyle-cflags-go",
      "newstyle-cflags-go-read",
      "newstyle-cflags-go-read4",
      "newstyle-cflags-go-write"
    };
    for (String seed : seeds) {
      List<String> cmd =
          Clients.list(
              ServerProcess.javaCommand(),
              "open",
              image.data().toString(),
              "",
              image.hash().toString(),
              image.root(),
              "--stdin");
      Process p =
          Jverity.detailed(new ProcessBuilder(cmd))
              .redirectInput(corpus.resolve(seed).toFile())
              .redirectError(dir.resolve(seed + ".err").toFile())
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      assertThat(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).as(seed).isTrue();
      assertThat(p.exitValue())
          .as(seed + ": " + Files.readString(dir.resolve(seed + ".err")))
          .isZero();
      assertThat(new String(out, 0, 16, java.nio.charset.StandardCharsets.ISO_8859_1))
          .as(seed)
          .isEqualTo("NBDMAGICIHAVEOPT");
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(out);
      if (seed.endsWith("go-read")) { // greeting 18, GO replies, then a simple reply and 512 bytes
        assertThat(java.util.Arrays.copyOfRange(out, out.length - 512, out.length))
            .isEqualTo(first);
        assertThat(b.getInt(out.length - 512 - 16)).isEqualTo(0x67446698);
        assertThat(b.getInt(out.length - 512 - 12)).isZero();
      } else if (seed.endsWith("go-write")) {
        assertThat(b.getInt(out.length - 16)).isEqualTo(0x67446698);
        assertThat(b.getInt(out.length - 12)).as("EPERM").isEqualTo(1);
      } else if (seed.endsWith("go-read4")) {
        assertThat(java.util.Arrays.copyOfRange(out, out.length - 512, out.length))
            .isEqualTo(first);
      } else if (seed.contains("exportname")) {
        assertThat(out).hasSize(18); // "/" is not an export: the session ends after the greeting
      }
    }
  }
}
