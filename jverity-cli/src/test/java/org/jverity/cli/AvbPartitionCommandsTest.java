package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.VbmetaHeader;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.Openssl;

/**
 * {@code read} and {@code verify} of an AVB partition image with {@code --avb-key}: the vbmeta
 * checked against the key (PEM private or public key, or the blob) before anything is read or
 * written, the hashtree descriptor giving the tree and the FEC, the data {@code [0, image_size)};
 * refusals in one line with their exit codes, and no output file left behind by one.
 */
class AvbPartitionCommandsTest {
  private static final int BLOCKS = 300;

  @TempDir Path dir;

  private byte[] original;

  /** A signed image of {@link #BLOCKS} blocks with FEC; {@link #original} its data. */
  private AvbTestImage signedImage() throws Exception {
    Path file = AvbTestImage.data(dir.resolve("system.img"), BLOCKS, 19);
    original = Files.readAllBytes(file);
    return AvbTestImage.signed(file);
  }

  private Path key(String name) {
    return AvbTestKeys.copy(name, dir);
  }

  private static String s(Path p) {
    return p.toString();
  }

  @Test
  void readOfASignedImageWritesItsDataAndNothingPastImageSize() throws Exception {
    AvbTestImage image = signedImage();
    assertThat(Files.size(image.file())).isGreaterThan(image.imageSize());
    Path out = dir.resolve("out.img");
    ToolRun r =
        Jverity.run("read", s(image.file()), "--avb-key", s(key(AvbTestImage.KEY)), "-o", s(out));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.stderr()).as("signed: nothing to say").isEmpty();
    assertThat(Files.readAllBytes(out)).isEqualTo(original);

    Path tail = dir.resolve("tail.img");
    ToolRun pastEnd =
        Jverity.run(
            "read",
            s(image.file()),
            "--avb-key",
            s(key(AvbTestImage.KEY)),
            "--offset",
            String.valueOf(image.imageSize() - 10),
            "--length",
            "11",
            "-o",
            s(tail));
    assertThat(pastEnd.exitCode())
        .as("the data ends at image_size: %s", pastEnd)
        .isEqualTo(ExitCode.INVALID_PARAMETER);
    ToolRun last =
        Jverity.run(
            "read",
            s(image.file()),
            "--avb-key",
            s(key(AvbTestImage.KEY)),
            "--offset",
            String.valueOf(image.imageSize() - 10),
            "-o",
            s(tail));
    assertThat(last.exitCode()).as(last.toString()).isZero();
    assertThat(Files.readAllBytes(tail))
        .isEqualTo(Arrays.copyOfRange(original, original.length - 10, original.length));
  }

  @Test
  void theKeyIsAPemPrivateKeyAPemPublicKeyOrTheBlob() throws Exception {
    AvbTestImage image = signedImage();
    Path pem = key(AvbTestImage.KEY);
    Openssl.in(dir).run("rsa", "-in", s(pem), "-pubout", "-out", "public.pem").ok();
    Path blob =
        Files.write(dir.resolve("key.bin"), AvbPublicKey.readBlob(pem)); // extract_public_key's
    for (Path key : new Path[] {pem, dir.resolve("public.pem"), blob}) {
      ToolRun r = Jverity.run("verify", s(image.file()), "--avb-key", s(key));
      assertThat(r.exitCode()).as("%s: %s", key, r).isZero();
    }
  }

  @Test
  void aWrongKeyIsRefusedBeforeAnyOutputIsWritten() throws Exception {
    AvbTestImage image = signedImage();
    Path out = Files.writeString(dir.resolve("out.img"), "left as it was");
    ToolRun r =
        Jverity.run(
            "read", s(image.file()), "--avb-key", s(key(AvbTestImage.OTHER_KEY)), "-o", s(out));
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(r.stderrLines())
        .hasSize(1)
        .first()
        .asString()
        .startsWith("jverity: ")
        .contains("system.img");
    assertThat(Files.readString(out)).isEqualTo("left as it was");
    assertThat(dir)
        .isDirectoryNotContaining(p -> p.getFileName().toString().startsWith(".out.img"));

    ToolRun v = Jverity.run("verify", s(image.file()), "--avb-key", s(key(AvbTestImage.OTHER_KEY)));
    assertThat(v.exitCode()).as(v.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(v.stderrLines()).hasSize(1);
  }

  @Test
  void anUnsignedImageNeedsNoneWhichSaysSo() throws Exception {
    Path file = AvbTestImage.data(dir.resolve("vendor.img"), 40, 7);
    byte[] data = Files.readAllBytes(file);
    AvbTestImage image = AvbTestImage.build(file, AvbAlgorithm.NONE, null, 2, 0);
    Path out = dir.resolve("out.img");

    ToolRun refused =
        Jverity.run("read", s(image.file()), "--avb-key", s(key(AvbTestImage.KEY)), "-o", s(out));
    assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(refused.stderrLines()).hasSize(1);
    assertThat(out).doesNotExist();

    ToolRun accepted = Jverity.run("read", s(image.file()), "--avb-key", "none", "-o", s(out));
    assertThat(accepted.exitCode()).as(accepted.toString()).isZero();
    assertThat(accepted.stderrLines())
        .containsExactly(
            "jverity: " + image.file() + ": vbmeta is not signed (accepted: --avb-key none)");
    assertThat(Files.readAllBytes(out)).isEqualTo(data);

    ToolRun signedWithNone = Jverity.run("verify", s(signedImage().file()), "--avb-key", "none");
    assertThat(signedWithNone.exitCode())
        .as("none accepts only an unsigned image: %s", signedWithNone)
        .isEqualTo(ExitCode.AVB_REFUSED);
  }

  @Test
  void verificationDisabledByTheFlagsIsRefused() throws Exception {
    Path file = AvbTestImage.data(dir.resolve("system.img"), 20, 3);
    AvbTestImage image =
        AvbTestImage.build(
            file,
            AvbAlgorithm.SHA256_RSA2048,
            AvbTestImage.KEY,
            2,
            VbmetaHeader.FLAG_HASHTREE_DISABLED);
    Path out = dir.resolve("out.img");
    ToolRun r =
        Jverity.run("read", s(image.file()), "--avb-key", s(key(AvbTestImage.KEY)), "-o", s(out));
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(out).doesNotExist();
  }

  @Test
  void aCorruptedDataByteIsCorrectedByTheDescriptorsFecAndMoreIsCorruption() throws Exception {
    AvbTestImage image = signedImage();
    String key = s(key(AvbTestImage.KEY));
    AvbTestImage.flip(image.file(), 5 * 4096 + 123);
    Path out = dir.resolve("out.img");
    ToolRun read = Jverity.run("read", s(image.file()), "--avb-key", key, "-o", s(out));
    assertThat(read.exitCode()).as(read.toString()).isZero();
    assertThat(read.stderr()).contains("data block 5 corrected with FEC");
    assertThat(Files.readAllBytes(out)).isEqualTo(original);
    ToolRun verify = Jverity.run("verify", s(image.file()), "--avb-key", key);
    assertThat(verify.exitCode()).as(verify.toString()).isZero();
    assertThat(verify.stderr()).contains("1 block is correctable with FEC");

    // Two roots correct one byte of a codeword: byte 0 of blocks r, r + rounds, ... share one.
    long rounds = Math.ceilDiv(image.fecOffset() / 4096, 255 - 2);
    for (int row = 0; row < 4; row++) {
      AvbTestImage.flip(image.file(), row * rounds * 4096);
    }
    Files.delete(out);
    ToolRun beyond = Jverity.run("read", s(image.file()), "--avb-key", key, "-o", s(out));
    assertThat(beyond.exitCode()).as(beyond.toString()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(out).doesNotExist();
    ToolRun verifyBeyond = Jverity.run("verify", s(image.file()), "--avb-key", key);
    assertThat(verifyBeyond.exitCode()).as(verifyBeyond.toString()).isEqualTo(ExitCode.CORRUPTION);
  }

  @Test
  void whatTheVbmetaGivesIsRefusedAsConflicting() throws Exception {
    AvbTestImage image = signedImage();
    String img = s(image.file());
    String key = s(key(AvbTestImage.KEY));
    String root = "ab".repeat(32);
    Path rootFile = Files.writeString(dir.resolve("root.txt"), root);
    String[][] conflicting = {
      {"read", img, img, "--avb-key", key},
      {"read", img, img, root, "--avb-key", key},
      {"verify", img, "--avb-key", key, "--root-hash-file", s(rootFile)},
      {"verify", img, "--avb-key", key, "--hash-offset", "4096"},
      {"read", img, "--avb-key", key, "--no-superblock"},
      {"verify", img, "--avb-key", key, "--fec-device", img},
    };
    for (String[] args : conflicting) {
      ToolRun r = Jverity.run(args);
      assertThat(r.exitCode()).as("%s: %s", Arrays.toString(args), r).isEqualTo(ExitCode.USAGE);
      assertThat(r.stderrLines())
          .as(Arrays.toString(args))
          .hasSize(1)
          .first()
          .asString()
          .startsWith(
              "jverity: --avb-key takes the hash tree, root hash and FEC from the image's vbmeta: give no ");
    }
    ToolRun noHash = Jverity.run("verify", img);
    assertThat(noHash.exitCode()).as(noHash.toString()).isEqualTo(ExitCode.USAGE);
    assertThat(noHash.stderr()).contains("missing required parameter 'HASH'");
  }

  @Test
  void theOutputIsNeverTheImage() throws Exception {
    AvbTestImage image = signedImage();
    byte[] before = Files.readAllBytes(image.file());
    ToolRun r =
        Jverity.run(
            "read", s(image.file()), "--avb-key", s(key(AvbTestImage.KEY)), "-o", s(image.file()));
    assertThat(r.exitCode()).as(r.toString()).isNotZero();
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(Files.readAllBytes(image.file())).isEqualTo(before);
  }

  @Test
  void anImageWithoutAFooterIsRefusedInOneLine() throws Exception {
    Path plain = AvbTestImage.data(dir.resolve("plain.img"), 8, 1);
    ToolRun r = Jverity.run("verify", s(plain), "--avb-key", s(key(AvbTestImage.KEY)));
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(r.stderrLines()).hasSize(1).first().asString().contains("plain.img");
  }

  @Test
  void anImageAtAUrlIsReadAndVerified() throws Exception {
    AvbTestImage image = signedImage();
    String key = s(key(AvbTestImage.KEY));
    try (Nginx nginx = Nginx.start(Files.createDirectories(dir.resolve("nginx")))) {
      Files.copy(image.file(), nginx.www().resolve("system.img"));
      String url = nginx.url("system.img").toString();
      Path out = dir.resolve("out.img");
      ToolRun read = Jverity.run("read", url, "--avb-key", key, "-o", s(out));
      assertThat(read.exitCode()).as(read.toString()).isZero();
      assertThat(Files.readAllBytes(out)).isEqualTo(original);
      ToolRun verify = Jverity.run("verify", url, "--avb-key", key);
      assertThat(verify.exitCode()).as(verify.toString()).isZero();
      ToolRun wrong = Jverity.run("verify", url, "--avb-key", s(key(AvbTestImage.OTHER_KEY)));
      assertThat(wrong.exitCode()).as(wrong.toString()).isEqualTo(ExitCode.AVB_REFUSED);
    }
  }

  @Test
  void openRefusesWhatTheVbmetaGivesBeforeListening() throws Exception {
    AvbTestImage image = signedImage();
    String img = s(image.file());
    String key = s(key(AvbTestImage.KEY));
    String[][] conflicting = {
      {"open", img, "system", img, "--avb-key", key},
      {"open", img, "system", "--avb-key", key, "--salt", "00"},
      {"open", img, "system", "--avb-key", key, "--fec-roots", "2"},
    };
    for (String[] args : conflicting) {
      ToolRun r = Jverity.run(args);
      assertThat(r.exitCode()).as("%s: %s", Arrays.toString(args), r).isEqualTo(ExitCode.USAGE);
      assertThat(r.stderrLines()).as(Arrays.toString(args)).hasSize(1);
    }
  }
}
