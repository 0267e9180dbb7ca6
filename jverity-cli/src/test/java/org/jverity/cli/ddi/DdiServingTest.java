package org.jverity.cli.ddi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.HostedServer;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;

/**
 * {@code open IMAGE.raw NAME} serving a DDI's root partition verified over NBD, the trust from its
 * signature partition and the certificates given: images built by jverity and by systemd-repart
 * 252, each copied by nbdcopy byte-identical to the ext4 image they were made of; a signature no
 * trusted certificate made, and an unsigned image without a root hash, refused before anything is
 * served.
 */
class DdiServingTest {
  @TempDir Path dir;

  private DdiImages images;

  /** A 16 MiB ext4 image of one 900 kB file, and the signer's key pair and keys/signer.crt. */
  private Path ext4() throws Exception {
    Path src = Files.createDirectories(dir.resolve("src"));
    byte[] big = new byte[900_000];
    new SplittableRandom(5).nextBytes(big);
    Files.write(src.resolve("app.bin"), big);
    images = new DdiImages(dir);
    images.certDir();
    return images.ext4(src, "rootfs.ext4");
  }

  private void servesTheFileSystem(Path image, Path fs) throws Exception {
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            image.toString(),
            "root",
            "--cert-dir",
            dir.resolve("keys").toString(),
            "--arch",
            "x86-64",
            "--port",
            "0")) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(NbdClients.sha256(fs));
      String info = Tool.of("nbdinfo").run(uri).ok().out();
      assertThat(info)
          .contains("partition 1 (root-x86-64), root hash ")
          .contains("signed by " + dir.resolve("keys/signer.crt"));
    }
  }

  @Test
  void servesTheRootPartitionOfADdiJverityBuilt() throws Exception {
    Path fs = ext4();
    servesTheFileSystem(images.signed(fs, "image.raw"), fs);
  }

  @Test
  void servesTheRootPartitionOfADdiRepartBuilt() throws Exception {
    Path fs = ext4();
    servesTheFileSystem(images.repartSigned(fs, "repart.raw"), fs);
  }

  @Test
  void servesADdiAtAUrlAndStatusSaysWhatWasTrusted() throws Exception {
    Path fs = ext4();
    Path image = images.signed(fs, "image.raw");
    try (Nginx nginx = Nginx.start(Files.createDirectories(dir.resolve("nginx")))) {
      Files.copy(image, nginx.www().resolve("image.raw"));
      try (ServerProcess server =
          ServerProcess.start(
              dir,
              "open",
              nginx.url("image.raw").toString(),
              "os",
              "--cert-dir",
              dir.resolve("keys").toString(),
              "--arch",
              "x86-64",
              "--port",
              "0")) {
        String uri = server.line();
        String copied;
        try {
          copied = NbdClients.sha256OfCopy(uri);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; server: " + server.stderr(), e);
        }
        assertThat(copied).isEqualTo(NbdClients.sha256(fs));
        ToolRun status =
            Jverity.run("status", "os", "--runtime-dir", dir.resolve("run").toString());
        assertThat(status.exitCode()).as(status.stderr()).isZero();
        assertThat(status.stdout())
            .contains("partition 1 (root-x86-64), root hash ")
            .contains("signed by " + dir.resolve("keys/signer.crt"));
      }
    }
  }

  @Test
  void buildsFromAUrlTheImageTheFileGives() throws Exception {
    Path fs = ext4();
    String seed = "0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10";
    Path fromFile = dir.resolve("file.raw");
    Path fromUrl = dir.resolve("url.raw");
    try (Nginx nginx = Nginx.start(Files.createDirectories(dir.resolve("nginx")))) {
      Files.copy(fs, nginx.www().resolve("rootfs.ext4"));
      for (var build :
          List.of(
              List.of(fromFile.toString(), "--root", fs.toString()),
              List.of(fromUrl.toString(), "--root", nginx.url("rootfs.ext4").toString()))) {
        List<String> args = new java.util.ArrayList<>(List.of("ddi", "build"));
        args.addAll(build);
        args.addAll(
            List.of(
                "--key",
                dir.resolve("signer.key").toString(),
                "--cert",
                dir.resolve("signer.crt").toString(),
                "--arch",
                "x86-64",
                "--seed",
                seed));
        ToolRun b = Jverity.run(args.toArray(String[]::new));
        assertThat(b.exitCode()).as(b.stderr()).isZero();
      }
      assertThat(Files.mismatch(fromFile, fromUrl)).isEqualTo(-1L);
      ToolRun missing =
          Jverity.run(
              "ddi",
              "build",
              dir.resolve("none.raw").toString(),
              "--root",
              nginx.url("absent.ext4").toString(),
              "--arch",
              "x86-64");
      assertThat(missing.exitCode()).isNotZero();
      assertThat(missing.stderrLines()).singleElement().asString().contains("absent.ext4");
      assertThat(dir.resolve("none.raw")).doesNotExist();
    }
  }

  @Test
  void servesADdiThatAServeConfigNames() throws Exception {
    Path fs = ext4();
    images.signed(fs, "image.raw");
    Path conf = dir.resolve("serve.conf");
    Files.writeString(
        conf,
        "[generic]\nport = 0\n\n[os]\nddi = image.raw\ncert-dir = keys\narch = x86-64\n"
            + "partition = root\n");
    try (HostedServer server = HostedServer.start(dir, "serve", conf.toString())) {
      String uri = server.line();
      assertThat(uri).endsWith("/os");
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(NbdClients.sha256(fs));
    }
    Files.writeString(conf, "[os]\ndata = image.raw\npartition = usr\n");
    ToolRun withoutDdi =
        Jverity.run("serve", conf.toString(), "--runtime-dir", dir.resolve("run").toString());
    assertThat(withoutDdi.exitCode()).isEqualTo(3);
    assertThat(withoutDdi.stderrLines())
        .singleElement()
        .asString()
        .contains("serve.conf:3: partition: given without ddi");
    Files.writeString(
        conf, "[os]\nddi = image.raw\ncert-dir = keys\narch = x86-64\npartition = home\n");
    ToolRun badPartition =
        Jverity.run("serve", conf.toString(), "--runtime-dir", dir.resolve("run").toString());
    assertThat(badPartition.exitCode()).isEqualTo(3);
    assertThat(badPartition.stderrLines()).singleElement().asString().contains("serve.conf:5:");
    Openssl.rsa(dir, "stranger", 2048);
    Path strangers = Files.createDirectories(dir.resolve("strangers"));
    Files.copy(dir.resolve("stranger.crt"), strangers.resolve("stranger.crt"));
    Files.writeString(conf, "[os]\nddi = image.raw\ncert-dir = strangers\narch = x86-64\n");
    ToolRun untrusted =
        Jverity.run("serve", conf.toString(), "--runtime-dir", dir.resolve("run").toString());
    assertThat(untrusted.exitCode()).isEqualTo(14);
    assertThat(untrusted.stderrLines())
        .singleElement()
        .asString()
        .contains("serve.conf:2: [os] ddi: ");
  }

  @Test
  void aCertDirThatDoesNotExistIsRefusedNotTrustingNothingSilently() throws Exception {
    Path fs = ext4();
    Path image = images.signed(fs, "image.raw");
    String missing = dir.resolve("kyes").toString();
    for (String[] args :
        List.of(
            new String[] {"open", image.toString(), "os", "--cert-dir", missing, "--port", "0"},
            new String[] {"ddi", "verify", image.toString(), "--cert-dir", missing})) {
      ToolRun r = Jverity.run(args);
      assertThat(r.exitCode()).as(r.stderr()).isEqualTo(4);
      assertThat(r.stdout()).isEmpty();
      assertThat(r.stderrLines())
          .singleElement()
          .asString()
          .isEqualTo("jverity: --cert-dir: " + missing + ": no such directory");
    }
  }

  @Test
  void ddiOptionsForAnImageThatIsNoDiskAreRefused() throws Exception {
    Path fs = ext4();
    ToolRun r =
        Jverity.run(
            "open",
            fs.toString(),
            "root",
            dir.resolve("x.hash").toString(),
            "00",
            "--cert-dir",
            "keys");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderrLines()).singleElement().asString().contains("--cert-dir is for a DDI");
  }

  @Test
  void aSignatureNoTrustedCertificateMadeIsRefused() throws Exception {
    Path fs = ext4();
    Path image = images.signed(fs, "image.raw");
    Openssl.rsa(dir, "stranger", 2048);
    Path strangers = Files.createDirectories(dir.resolve("strangers"));
    Files.copy(dir.resolve("stranger.crt"), strangers.resolve("stranger.crt"));
    ToolRun r =
        Jverity.run(
            "open",
            image.toString(),
            "root",
            "--cert-dir",
            strangers.toString(),
            "--arch",
            "x86-64",
            "--port",
            "0");
    assertThat(r.exitCode()).isEqualTo(14);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderrLines()).hasSize(1);
  }

  @Test
  void anUnsignedImageWithoutARootHashIsRefused() throws Exception {
    Path fs = ext4();
    Path image = dir.resolve("unsigned.raw");
    assertThat(
            Jverity.run(
                    "ddi", "build", image.toString(), "--root", fs.toString(), "--arch", "x86-64")
                .exitCode())
        .isZero();
    ToolRun r = Jverity.run("open", image.toString(), "root", "--arch", "x86-64", "--port", "0");
    assertThat(r.exitCode()).isEqualTo(19);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .contains("partition 1 (root-x86-64) cannot be verified (no root hash")
        .doesNotContain("Exception");
  }
}
