package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Fsverity;

/**
 * {@code sign} against {@code fsverity sign} (same signature bytes, same output line) and {@code
 * verify-sig} against signatures made by fsverity and openssl, good and bad.
 */
class SignCommandTest {
  @TempDir static Path dir;

  @BeforeAll
  static void keys() throws Exception {
    SigTools.rsa(dir, "signer");
    SigTools.rsa(dir, "other");
  }

  /** fsverity-utils' test file: byte i = ((i % 11) + (i % 439) + (i % 1103)) mod 256. */
  static Path file(int size) throws Exception {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) ((i % 11) + (i % 439) + (i % 1103));
    }
    Path f = dir.resolve("file-" + size);
    Files.write(f, b);
    return f;
  }

  static List<String> digestOptions(String alg, int blockSize, String salt) {
    List<String> o = new ArrayList<>(List.of("--hash-alg=" + alg, "--block-size=" + blockSize));
    if (!salt.isEmpty()) {
      o.add("--salt=" + salt);
    }
    return o;
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "0, sha256, 4096, ''",
    "1, sha256, 4096, ''",
    "4095, sha256, 4096, ''",
    "4096, sha256, 4096, ''",
    "4097, sha256, 4096, ''",
    "528384, sha256, 4096, ''", // 129 blocks: two levels
    "1000000, sha256, 4096, 61626364",
    "1000000, sha256, 1024, ''",
    "100000, sha512, 4096, ''",
    "1000000, sha512, 4096, 61626364",
    "300000, sha512, 1024, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "1, sha512, 65536, ''",
  })
  void signIsFsveritySignByteForByte(int size, String alg, int blockSize, String salt)
      throws Exception {
    Path f = file(size);
    List<String> opts = digestOptions(alg, blockSize, salt);
    List<String> theirs =
        new ArrayList<>(
            List.of("sign", f.toString(), "theirs.sig", "--key=signer.key", "--cert=signer.crt"));
    theirs.addAll(opts);
    String fsverityOut = Fsverity.tool().in(dir).check(theirs).out();
    List<String> ours =
        new ArrayList<>(
            List.of(
                "sign",
                f.toString(),
                dir.resolve("ours.sig").toString(),
                "--key=" + dir.resolve("signer.key"),
                "--cert=" + dir.resolve("signer.crt")));
    ours.addAll(opts);
    ToolRun r = Jverity.run(ours);
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.stdout()).isEqualTo(fsverityOut);
    assertThat(HexFormat.of().formatHex(Files.readAllBytes(dir.resolve("ours.sig"))))
        .isEqualTo(HexFormat.of().formatHex(Files.readAllBytes(dir.resolve("theirs.sig"))));

    List<String> verify =
        new ArrayList<>(
            List.of(
                "verify-sig",
                f.toString(),
                dir.resolve("theirs.sig").toString(),
                "--cert=" + dir.resolve("signer.crt")));
    verify.addAll(opts);
    ToolRun v = Jverity.run(verify);
    assertThat(v.exitCode()).as("%s", v).isZero();
    assertThat(v.stdout())
        .isEqualTo(
            "Verified file '"
                + f
                + "' ("
                + fsverityOut.substring(fsverityOut.indexOf('(') + 1, fsverityOut.indexOf(')'))
                + "), signed by 'CN=signer'\n");
  }

  @Test
  void signPrintsFsverityUtilsKnownAnswer() throws Exception {
    ToolRun r =
        Jverity.run(
            "sign",
            file(1000000).toString(),
            dir.resolve("kat.sig").toString(),
            "--salt=61626364",
            "--key=" + dir.resolve("signer.key"),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.stdout())
        .endsWith("(sha256:917900b0d299454aa304d5debc6f39e4af7b5abe33bdbc568d5d8f1e5c4d8652)\n");
  }

  /**
   * The formatted digest of {@code file} (via {@code fsverity digest}), written to a file for
   * openssl.
   */
  static String formattedDigest(Path f, String alg, int algId) throws Exception {
    String line = Fsverity.tool().in(dir).check("digest", f.toString(), "--hash-alg=" + alg).out();
    byte[] d = HexFormat.of().parseHex(line.substring(line.indexOf(':') + 1, line.indexOf(' ')));
    byte[] fd =
        ByteBuffer.allocate(12 + d.length)
            .order(ByteOrder.LITTLE_ENDIAN)
            .put("FSVerity".getBytes(StandardCharsets.US_ASCII))
            .putShort((short) algId)
            .putShort((short) d.length)
            .put(d)
            .array();
    Files.write(dir.resolve("formatted-" + alg), fd);
    return "formatted-" + alg;
  }

  static ToolRun verifySig(Path f, Path sig, String cert, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of("verify-sig", f.toString(), sig.toString(), "--cert=" + dir.resolve(cert)));
    a.addAll(List.of(more));
    return Jverity.run(a);
  }

  static void assertRefused(ToolRun r, String message) {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).startsWith("jverity: fs-verity signature: ").contains(message);
  }

  @Test
  void opensslSignaturesOfTheFormattedDigestVerify() throws Exception {
    Path f = file(100000);
    String in = formattedDigest(f, "sha256", 1);
    assertThat(
            verifySig(f, SigTools.opensslSign(dir, in, "smime.sig", "sha256", false), "signer.crt")
                .exitCode())
        .isZero();
    assertThat(
            verifySig(f, SigTools.opensslSign(dir, in, "cms.sig", "sha256", true), "signer.crt")
                .exitCode())
        .isZero();
    String in512 = formattedDigest(f, "sha512", 2);
    Path sig512 = SigTools.opensslSign(dir, in512, "cms512.sig", "sha512", true);
    assertThat(verifySig(f, sig512, "signer.crt", "--hash-alg=sha512").exitCode()).isZero();
  }

  @Test
  void badSignaturesAreRefusedWithTheirExitCode() throws Exception {
    Path f = file(100000);
    Path good = dir.resolve("good.sig");
    assertThat(
            Jverity.run(
                    "sign",
                    f.toString(),
                    good.toString(),
                    "--key=" + dir.resolve("signer.key"),
                    "--cert=" + dir.resolve("signer.crt"))
                .exitCode())
        .isZero();
    assertThat(verifySig(f, good, "signer.crt").exitCode()).isZero();

    assertRefused(verifySig(f, SigTools.flipped(good, 1), "signer.crt"), "does not verify");
    assertRefused(
        verifySig(f, SigTools.truncated(good, 200), "signer.crt"), "not a DER PKCS#7 signature");
    assertRefused(
        verifySig(f, SigTools.truncated(good, 0), "signer.crt"), "not a DER PKCS#7 signature");
    assertRefused(verifySig(f, good, "other.crt"), "signed by issuer 'CN=signer'");
    Path sha512Sig =
        SigTools.opensslSign(dir, formattedDigest(f, "sha256", 1), "md512.sig", "sha512", false);
    assertRefused(
        verifySig(f, sha512Sig, "signer.crt"),
        "signed with digest algorithm sha512 (expected: sha256)");
    // the right signature, checked as another tree: another digest algorithm, salt or file
    assertRefused(
        verifySig(f, good, "signer.crt", "--hash-alg=sha512"),
        "digest algorithm sha256 (expected: sha512)");
    assertRefused(verifySig(f, good, "signer.crt", "--salt=00"), "does not verify");
    assertRefused(verifySig(file(100001), good, "signer.crt"), "does not verify");
  }

  @Test
  void badOptionsAndFilesAreOneLineErrors() throws Exception {
    Path f = file(10);
    ToolRun r =
        Jverity.run(
            "sign",
            f.toString(),
            dir.resolve("x.sig").toString(),
            "--key=" + dir.resolve("other.key"),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(r.stderr())
        .isEqualTo("jverity: cannot sign: the private key is not the certificate's (CN=signer)\n");
    r =
        Jverity.run(
            "sign",
            f.toString(),
            dir.resolve("x.sig").toString(),
            "--key=" + dir.resolve("signer.crt"),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderr()).contains("not a PEM private key: a PEM CERTIFICATE (expected: PEM");
    r =
        Jverity.run(
            "sign",
            f.toString(),
            dir.resolve("x.sig").toString(),
            "--key=" + dir.resolve("signer.key"),
            "--cert=" + dir.resolve("signer.crt"),
            "--hash-alg=sha1");
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).isEqualTo("jverity: --hash-alg: sha1 (expected: sha256 or sha512)\n");
    r =
        Jverity.run(
            "sign",
            f.toString(),
            dir.resolve("x.sig").toString(),
            "--key=" + dir.resolve("signer.key"),
            "--cert=" + dir.resolve("signer.crt"),
            "--salt=" + "00".repeat(33));
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    r =
        Jverity.run(
            "sign",
            f.toString(),
            dir.resolve("x.sig").toString(),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
    r =
        Jverity.run(
            "verify-sig",
            f.toString(),
            dir.resolve("missing.sig").toString(),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).hasSize(1);
  }
}
