package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;

/**
 * dm-verity root-hash signatures on the command line: {@code format --root-hash-signature-out}
 * writes what the documented {@code openssl smime} recipe writes, and {@code verify} and {@code
 * read} with {@code --root-hash-signature --trusted-cert} accept a trusted signature of the root
 * and refuse every other with exit code 14 and one line.
 */
class RootHashSignatureCommandTest {
  @TempDir static Path dir;
  static Path data;
  static Path hash;
  static String root;

  @BeforeAll
  static void image() throws Exception {
    SigTools.rsa(dir, "signer");
    SigTools.rsa(dir, "other");
    byte[] b = new byte[129 * 4096];
    new Random(42).nextBytes(b);
    data = dir.resolve("data.img");
    hash = dir.resolve("hash.img");
    Files.write(data, b);
    ToolRun r =
        Jverity.run(
            "format",
            data.toString(),
            hash.toString(),
            "--root-hash-file=" + dir.resolve("roothash.txt"),
            "--root-hash-signature-out=" + dir.resolve("roothash.p7s"),
            "--key=" + dir.resolve("signer.key"),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isZero();
    root = Files.readString(dir.resolve("roothash.txt"));
  }

  static ToolRun verify(Path sig, String... certs) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "verify", data.toString(), hash.toString(), root, "--root-hash-signature=" + sig));
    for (String c : certs) {
      a.add("--trusted-cert=" + dir.resolve(c));
    }
    return Jverity.run(a);
  }

  static void assertRefused(ToolRun r, String message) {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).startsWith("jverity: root hash signature: ").contains(message);
  }

  @Test
  void formatWritesTheOpensslSmimeSignatureOfTheHexRoot() throws Exception {
    Path theirs = SigTools.opensslSign(dir, "roothash.txt", "openssl.p7s", "sha256", false);
    assertThat(Files.readAllBytes(dir.resolve("roothash.p7s")))
        .isEqualTo(Files.readAllBytes(theirs));
    assertThat(root).matches("[0-9a-f]{64}");
  }

  @Test
  void verifyAndReadAcceptATrustedSignature() throws Exception {
    assertThat(verify(dir.resolve("roothash.p7s"), "signer.crt").exitCode()).isZero();
    assertThat(verify(dir.resolve("roothash.p7s"), "other.crt", "signer.crt").exitCode()).isZero();
    Path cms =
        SigTools.opensslSign(
            dir, "roothash.txt", "cms.p7s", "sha512", true); // attributes, certificate
    assertThat(verify(cms, "signer.crt").exitCode()).isZero();
    Path out = dir.resolve("read.out");
    ToolRun r =
        Jverity.run(
            "read",
            data.toString(),
            hash.toString(),
            "--root-hash-file=" + dir.resolve("roothash.txt"),
            "--root-hash-signature=" + dir.resolve("roothash.p7s"),
            "--trusted-cert=" + dir.resolve("signer.crt"),
            "--output=" + out);
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));
  }

  @Test
  void otherSignaturesAreRefused() throws Exception {
    Path good = dir.resolve("roothash.p7s");
    assertRefused(verify(SigTools.flipped(good, 3), "signer.crt"), "does not verify");
    assertRefused(
        verify(SigTools.truncated(good, 300), "signer.crt"), "not a DER PKCS#7 signature");
    assertRefused(verify(good, "other.crt"), "no trusted certificate");
    Files.writeString(dir.resolve("otherroot.txt"), "00" + root.substring(2));
    Path otherRoot = SigTools.opensslSign(dir, "otherroot.txt", "otherroot.p7s", "sha256", false);
    assertRefused(verify(otherRoot, "signer.crt"), "does not verify");
    Files.writeString(
        dir.resolve("upper.txt"),
        root.toUpperCase()); // the kernel compares the table's lower-case hex
    assertRefused(
        verify(SigTools.opensslSign(dir, "upper.txt", "upper.p7s", "sha256", false), "signer.crt"),
        "does not verify");

    Path out = dir.resolve("refused.out");
    ToolRun r =
        Jverity.run(
            "read",
            data.toString(),
            hash.toString(),
            root,
            "--root-hash-signature=" + good,
            "--trusted-cert=" + dir.resolve("other.crt"),
            "--output=" + out);
    assertRefused(r, "no trusted certificate");
    assertThat(out)
        .satisfiesAnyOf(p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyFile());
  }

  @Test
  void theOptionsComeInPairs() {
    ToolRun r =
        Jverity.run(
            "verify",
            data.toString(),
            hash.toString(),
            root,
            "--root-hash-signature=" + dir.resolve("roothash.p7s"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(r.stderr()).isEqualTo("jverity: --root-hash-signature needs --trusted-cert\n");
    r =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("h2").toString(),
            "--root-hash-signature-out=" + dir.resolve("x.p7s"),
            "--key=" + dir.resolve("signer.key"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(r.stderr()).isEqualTo("jverity: --root-hash-signature-out needs --key and --cert\n");
    assertThat(dir.resolve("h2")).doesNotExist();
    r =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("h3").toString(),
            "--root-hash-signature-out=" + dir.resolve("x.p7s"),
            "--key=" + dir.resolve("other.key"),
            "--cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(dir.resolve("h3")).doesNotExist(); // refused before anything is written
  }
}
