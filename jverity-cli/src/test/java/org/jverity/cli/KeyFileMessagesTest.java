package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Openssl;

/**
 * A file given as a key or a certificate that is none (DER, garbage, empty, a certificate for a
 * key, a key for a certificate): every front end that reads one says in one line what the file
 * holds and what was expected, with the exit code a bad key always had (4; 17 where an AVB
 * public-key blob was also possible); never the charset decoder's "Input length = 1".
 */
class KeyFileMessagesTest {
  private static final String PRIVATE_KEY =
      "(expected: PEM '-----BEGIN PRIVATE KEY-----', '-----BEGIN RSA PRIVATE KEY-----' or"
          + " '-----BEGIN EC PRIVATE KEY-----'";

  @TempDir Path dir;
  private FormattedImage im;

  private String p(String name) {
    return dir.resolve(name).toString();
  }

  @BeforeEach
  void keys() throws Exception {
    SigTools.rsa(dir, "signer"); // signer.key (PEM), signer.crt (PEM)
    Openssl.in(dir).check("pkey", "-in", "signer.key", "-outform", "DER", "-out", "signer.der");
    Files.write(dir.resolve("garbage.bin"), new byte[] {(byte) 0xd8, (byte) 0xff, 0, 1, 2, 3});
    Files.write(dir.resolve("empty.pem"), new byte[0]);
    im = FormattedImage.create(dir, "d", 16);
  }

  private static String line(ToolRun r, int code) {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(code);
    BadInputTest.assertOneErrorLine(r);
    String line = r.stderrLines().getFirst();
    assertThat(line).doesNotContain("Input length");
    return line;
  }

  private static String derHint(String file) {
    return "; openssl pkey -inform DER -in " + file + " converts it)";
  }

  @Test
  void signKey() {
    String der =
        line(
            Jverity.run(
                "sign",
                "--key",
                p("signer.der"),
                "--cert",
                p("signer.crt"),
                im.data().toString(),
                p("s")),
            ExitCode.IO_ERROR);
    assertThat(der)
        .isEqualTo(
            "jverity: "
                + p("signer.der")
                + ": not a PEM private key: DER (binary ASN.1) "
                + PRIVATE_KEY
                + derHint(p("signer.der")));
    for (String[] c :
        new String[][] {
          {"garbage.bin", "binary"}, {"empty.pem", "empty"}, {"signer.crt", "a PEM CERTIFICATE"}
        }) {
      assertThat(
              line(
                  Jverity.run(
                      "sign",
                      "--key",
                      p(c[0]),
                      "--cert",
                      p("signer.crt"),
                      im.data().toString(),
                      p("s")),
                  ExitCode.IO_ERROR))
          .isEqualTo(
              "jverity: " + p(c[0]) + ": not a PEM private key: " + c[1] + " " + PRIVATE_KEY + ")");
    }
  }

  @Test
  void signCertificate() {
    assertThat(
            line(
                Jverity.run(
                    "sign",
                    "--key",
                    p("signer.key"),
                    "--cert",
                    p("signer.key"),
                    im.data().toString(),
                    p("s")),
                ExitCode.IO_ERROR))
        .isEqualTo(
            "jverity: "
                + p("signer.key")
                + ": not a certificate: a PEM PRIVATE KEY (expected: PEM '-----BEGIN"
                + " CERTIFICATE-----', or DER)");
    assertThat(
            line(
                Jverity.run(
                    "sign",
                    "--key",
                    p("signer.key"),
                    "--cert",
                    p("signer.der"),
                    im.data().toString(),
                    p("s")),
                ExitCode.IO_ERROR))
        .startsWith(
            "jverity: "
                + p("signer.der")
                + ": not a certificate: DER (binary ASN.1) that does not parse as X.509 (");
  }

  @Test
  void formatKey() {
    String r =
        line(
            Jverity.run(
                "format",
                im.data().toString(),
                p("new.hash"),
                "--root-hash-signature-out",
                p("root.p7s"),
                "--key",
                p("signer.der"),
                "--cert",
                p("signer.crt")),
            ExitCode.IO_ERROR);
    assertThat(r).startsWith("jverity: " + p("signer.der") + ": not a PEM private key: DER");
    assertThat(dir.resolve("root.p7s")).doesNotExist();
  }

  @Test
  void trustedCert() {
    String r =
        line(
            Jverity.run(
                "verify",
                im.data().toString(),
                im.hash().toString(),
                im.root(),
                "--root-hash-signature",
                p("garbage.bin"),
                "--trusted-cert",
                p("garbage.bin")),
            ExitCode.IO_ERROR);
    assertThat(r)
        .isEqualTo(
            "jverity: "
                + p("garbage.bin")
                + ": not a certificate: binary (expected: PEM '-----BEGIN CERTIFICATE-----', or"
                + " DER)");
  }

  @Test
  void avbKeyForSigning() throws Exception {
    Path image = Files.write(dir.resolve("boot.img"), new byte[65536]);
    String r =
        line(
            Jverity.run(
                "avb",
                "add_hash_footer",
                "--image",
                image.toString(),
                "--partition_size",
                "1048576",
                "--partition_name",
                "boot",
                "--algorithm",
                "SHA256_RSA2048",
                "--key",
                p("signer.der")),
            ExitCode.IO_ERROR);
    assertThat(r)
        .isEqualTo(
            "jverity: "
                + p("signer.der")
                + ": not a PEM private key: DER (binary ASN.1) "
                + PRIVATE_KEY
                + derHint(p("signer.der")));
    assertThat(Files.readAllBytes(image)).isEqualTo(new byte[65536]);
  }

  @Test
  void avbKeyForVerifyingAndAvbKey() throws Exception {
    Path image = Files.write(dir.resolve("boot.img"), new byte[65536]);
    assertThat(
            Jverity.run(
                    "avb",
                    "add_hash_footer",
                    "--image",
                    image.toString(),
                    "--partition_size",
                    "1048576",
                    "--partition_name",
                    "boot",
                    "--algorithm",
                    "SHA256_RSA2048",
                    "--key",
                    AvbTestKeys.path("testkey_rsa2048.pem").toString())
                .exitCode())
        .isZero();
    String expected =
        "jverity: "
            + p("signer.der")
            + ": not a PEM key nor an AVB public-key blob: DER (binary ASN.1) (expected: a PEM"
            + " key, or the blob extract_public_key writes"
            + derHint(p("signer.der"));
    assertThat(
            line(
                Jverity.run(
                    "avb", "verify_image", "--image", image.toString(), "--key", p("signer.der")),
                ExitCode.AVB_INVALID))
        .isEqualTo(expected);
    assertThat(
            line(
                Jverity.run("read", image.toString(), "--avb-key", p("signer.der"), "-o", p("o")),
                ExitCode.AVB_INVALID))
        .isEqualTo(expected);
    assertThat(
            line(
                Jverity.run("read", image.toString(), "--avb-key", p("signer.crt"), "-o", p("o")),
                ExitCode.IO_ERROR))
        .isEqualTo(
            "jverity: "
                + p("signer.crt")
                + ": not a PEM public key: a PEM CERTIFICATE (expected: PEM '-----BEGIN PUBLIC"
                + " KEY-----' or '-----BEGIN RSA PUBLIC KEY-----')");
    assertThat(
            line(
                Jverity.run("read", image.toString(), "--avb-key", p("empty.pem"), "-o", p("o")),
                ExitCode.AVB_INVALID))
        .contains(": not a PEM key nor an AVB public-key blob: empty (expected");
  }
}
