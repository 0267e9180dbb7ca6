package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.Tool;

/**
 * An AVB partition image served over NBD, in a child JVM, read with the real clients: {@code open
 * IMG NAME --avb-key KEY} and a {@code serve} section with {@code data} and {@code avb-key}. The
 * export is exactly {@code [0, image_size)} (nbdinfo's size, nbdcopy's bytes), a corrupted byte is
 * corrected by the descriptor's FEC as it is served, a wrong key starts nothing, and a reload picks
 * up an image signed anew.
 */
class AvbServingTest {
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdinfo").require();
    Tool.of("nbdcopy").require();
    Tool.of("kill").require();
  }

  private AvbTestImage image(String name, int blocks, long seed) throws Exception {
    return AvbTestImage.signed(AvbTestImage.data(dir.resolve(name), blocks, seed));
  }

  private static String sha256(byte[] b) throws Exception {
    return NbdClients.sha256(new ByteArrayInputStream(b));
  }

  @Test
  void openServesImageSizeBytesVerifiedAndCorrectedWithTheDescriptorsFec() throws Exception {
    Path file = AvbTestImage.data(dir.resolve("system.img"), 200, 11);
    String want = NbdClients.sha256(file);
    AvbTestImage image = AvbTestImage.signed(file);
    AvbTestImage.flip(image.file(), 7 * 4096 + 1); // FEC corrects it as it is served
    Path key = AvbTestKeys.copy(AvbTestImage.KEY, dir);
    try (ServerProcess server =
        ServerProcess.start(
            dir, "open", file.toString(), "system", "--avb-key", key.toString(), "--port", "0")) {
      String uri = server.line();
      assertThat(uri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/system");
      ToolRun info = Clients.run("nbdinfo", "--json", uri);
      assertThat(info.exitCode()).as(info.toString()).isZero();
      assertThat(info.stdout()).contains("\"export-size\": " + image.imageSize());
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(want);
      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(server.stderr()).contains("data block 7 corrected");
    }
  }

  @Test
  void anImageAtAUrlIsServedByOpenAndServe() throws Exception {
    Path file = AvbTestImage.data(dir.resolve("system.img"), 100, 13);
    String want = NbdClients.sha256(file);
    AvbTestImage image = AvbTestImage.signed(file);
    Path key = AvbTestKeys.copy(AvbTestImage.KEY, dir);
    try (Nginx nginx = Nginx.start(Files.createDirectories(dir.resolve("nginx")))) {
      Files.copy(image.file(), nginx.www().resolve("system.img"));
      String url = nginx.url("system.img").toString();
      try (ServerProcess server =
          ServerProcess.start(
              dir, "open", url, "system", "--avb-key", key.toString(), "--port", "0")) {
        String uri = server.line();
        assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(want);
        assertThat(server.terminate()).as(server.stderr()).isZero();
      }
      Path conf =
          Files.writeString(
              dir.resolve("serve.conf"),
              "[generic]\nport = 0\ncache-dir = cache\n\n[s]\ndata = "
                  + url
                  + "\navb-key = "
                  + key.getFileName()
                  + "\n");
      try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
        String uri = server.line();
        assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(want);
        // a reload reads the vbmeta again while the server holds its cache directory
        Tool.of("kill").check("-HUP", Long.toString(server.pid()));
        awaitLog(server, "reloaded config");
        assertThat(server.stderr()).contains("0 changed, 1 unchanged");
        assertThat(server.terminate()).as(server.stderr()).isZero();
      }
    }
  }

  @Test
  void aWrongKeyStartsNoServer() throws Exception {
    AvbTestImage image = image("system.img", 20, 2);
    Path other = AvbTestKeys.copy(AvbTestImage.OTHER_KEY, dir);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.file().toString(),
            "system",
            "--avb-key",
            other.toString(),
            "--port",
            "0")) {
      assertThat(server.waitFor()).as(server.stderr()).isEqualTo(ExitCode.AVB_REFUSED);
      assertThat(server.restOfStdout()).as("no URI").isEmpty();
      assertThat(server.stderr().lines().filter(l -> l.startsWith("jverity: ")).toList())
          .hasSize(1)
          .first()
          .asString()
          .contains("system.img");
    }
  }

  @Test
  void serveTakesDataAndAvbKeyAndAReloadServesTheImageSignedAnew() throws Exception {
    AvbTestImage a = image("a.img", 64, 5);
    byte[] aData = Arrays.copyOf(Files.readAllBytes(a.file()), (int) a.imageSize());
    Path keys = Files.createDirectories(dir.resolve("keys"));
    AvbTestKeys.copy(AvbTestImage.KEY, keys);
    Path unsignedFile = AvbTestImage.data(dir.resolve("u.img"), 16, 6);
    byte[] uData = Files.readAllBytes(unsignedFile);
    AvbTestImage.build(unsignedFile, AvbAlgorithm.NONE, null, 0, 0);
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            port = 0

            [a]
            data = a.img
            avb-key = keys/%s

            [u]
            data = u.img
            avb-key = none
            """
                .formatted(AvbTestImage.KEY));
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      String aUri = server.line();
      String uUri = server.line();
      assertThat(NbdClients.sha256OfCopy(aUri)).isEqualTo(sha256(aData));
      assertThat(NbdClients.sha256OfCopy(uUri)).isEqualTo(sha256(uData));
      assertThat(server.stderr())
          .contains("jverity: export u: " + dir.resolve("u.img") + ": vbmeta is not signed");

      // a.img made anew from other data, signed with the same key: a changed export
      Path next = AvbTestImage.data(dir.resolve("a.next"), 32, 99);
      byte[] nextData = Files.readAllBytes(next);
      AvbTestImage.signed(next);
      Files.move(next, dir.resolve("a.img"), StandardCopyOption.REPLACE_EXISTING);
      Tool.of("kill").check("-HUP", Long.toString(server.pid()));
      awaitLog(server, "reloaded config");
      assertThat(server.stderr()).contains("1 changed");
      assertThat(NbdClients.sha256OfCopy(aUri)).isEqualTo(sha256(nextData));
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void serveRefusesTheKeysTheVbmetaGivesAndAWrongKeyNamingTheLine() throws Exception {
    AvbTestImage a = image("a.img", 16, 5);
    AvbTestKeys.copy(AvbTestImage.KEY, dir);
    AvbTestKeys.copy(AvbTestImage.OTHER_KEY, dir);
    Path conflict =
        Files.writeString(
            dir.resolve("c.conf"),
            "[a]\ndata = a.img\navb-key = " + AvbTestImage.KEY + "\nhash-offset = 4096\n");
    ToolRun c = Jverity.run("serve", conflict.toString());
    assertThat(c.exitCode()).as(c.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(c.stderrLines())
        .containsExactly(
            "jverity: "
                + conflict
                + ":4: hash-offset: given with avb-key (expected: none; the image's vbmeta gives"
                + " the hash tree, root hash and FEC)");
    Path wrong =
        Files.writeString(
            dir.resolve("w.conf"), "[a]\ndata = a.img\navb-key = " + AvbTestImage.OTHER_KEY + "\n");
    ToolRun w = Jverity.run("serve", wrong.toString());
    assertThat(w.exitCode()).as(w.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(w.stderrLines())
        .hasSize(1)
        .first()
        .asString()
        .startsWith("jverity: " + wrong + ":3: [a] avb-key: ");
    assertThat(a.file()).exists();
  }

  private static void awaitLog(ServerProcess server, String text) throws Exception {
    for (int i = 0; i < 600; i++) {
      List<String> lines = server.stderr().lines().filter(l -> l.contains(text)).toList();
      if (!lines.isEmpty()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no '" + text + "' in: " + server.stderr());
  }
}
