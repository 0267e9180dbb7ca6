package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.Tool;

/**
 * {@code close NAME} while a real client (libnbd, through nbdsh) keeps 16 reads in flight: as the
 * docs/serving.md says, every read the server took is answered, with the file's bytes or with
 * ESHUTDOWN, never cut off by the connection's end; the client, told ESHUTDOWN, stops, collects its
 * outstanding replies and disconnects, and {@code close} returns.
 */
class CloseDrainTest {
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdsh").require();
  }

  /**
   * Reads 4 KiB blocks round the export, 16 at a time, until one fails; then waits for the rest.
   * Writes "ok shutdown other" counts and the other errors to RESULT. A read whose bytes differ
   * from the data file's counts as other.
   */
  private static final String CLIENT =
      """
      import errno, os
      data = open(DATA, "rb").read()
      size = h.get_size()
      ok = shut = 0
      other = []
      inflight = {}
      n = 0
      stop = False
      try:
          while True:
              while not stop and len(inflight) < 16:
                  buf = nbd.Buffer(4096)
                  off = (n * 4096) % size
                  inflight[h.aio_pread(buf, off)] = (buf, off)
                  n += 1
              if not inflight:
                  break
              h.poll(-1)
              for c in list(inflight):
                  try:
                      if not h.aio_command_completed(c):
                          continue
                      buf, off = inflight.pop(c)
                      if buf.to_bytearray() == data[off:off + 4096]:
                          ok += 1
                      else:
                          other.append("wrong bytes at %d" % off)
                      if ok == 200:
                          open(STARTED, "w").close()
                  except nbd.Error as e:
                      inflight.pop(c, None)
                      stop = True
                      if e.errnum == errno.ESHUTDOWN:
                          shut += 1
                      else:
                          other.append(str(e))
          h.shutdown()
      except nbd.Error as e:
          other.append("connection: " + str(e))
      open(RESULT, "w").write("%d %d %d\\n%s\\n" % (ok, shut, len(other), "\\n".join(other)))
      """;

  @Test
  void closeAnswersEveryReadInFlightWithDataOrEshutdown() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 256);
    FormattedImage two = FormattedImage.create(dir, "two", 16);
    Path config =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            port = 0

            [one]
            data = one.img
            hash = one.hash
            root-hash = %s

            [two]
            data = two.img
            hash = two.hash
            root-hash = %s
            """
                .formatted(one.root(), two.root()));
    Path started = dir.resolve("started");
    Path result = dir.resolve("result");
    String runtime = dir.resolve("run").toString();
    try (HostedServer server = HostedServer.start(dir, "serve", config.toString())) {
      String oneUri = server.line();
      server.line();
      String script =
          "DATA = %s\nSTARTED = %s\nRESULT = %s\n"
                  .formatted(quoted(one.data()), quoted(started), quoted(result))
              + CLIENT;
      Process client = Clients.start("nbdsh", "-u", oneUri, "-c", script);
      try {
        for (int i = 0; i < 400 && !Files.exists(started) && client.isAlive(); i++) {
          Thread.sleep(50);
        }
        assertThat(started).as("the client is reading").exists();

        ToolRun close = Jverity.run("close", "one", "--runtime-dir", runtime);
        assertThat(close.exitCode()).as(close.toString()).isZero();
        assertThat(client.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(client.exitValue()).isZero();
      } finally {
        client.destroyForcibly();
      }
      String[] lines = Files.readString(result).split("\n", 2);
      String[] counts = lines[0].split(" ");
      assertThat(Integer.parseInt(counts[0])).as("reads answered with data").isGreaterThan(200);
      assertThat(Integer.parseInt(counts[1])).as("reads answered ESHUTDOWN").isPositive();
      assertThat(Integer.parseInt(counts[2]))
          .as("reads cut off or wrong: %s", lines.length > 1 ? lines[1] : "")
          .isZero();
    }
  }

  private static String quoted(Path p) {
    return "'" + p.toString().replace("'", "\\'") + "'";
  }
}
