package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Fsverity;

/**
 * {@code jverity cat}: an fs-verity file made by {@code fsverity digest --out-merkle-tree} comes
 * out exactly; a damaged one comes out up to its first damaged block, then one line and exit 8; a
 * digest that is not the file's is exit 7 with nothing written. With {@code --signature} ({@code
 * fsverity sign}'s) instead of the digest: the same, and a signature that does not establish trust
 * is exit 14 with nothing written.
 */
class CatCommandTest {
  @TempDir Path dir;

  record Made(Path file, Path tree, String digest, byte[] bytes) {}

  /** {@code size} seeded bytes in {@code dir/f}, digested by fsverity (the oracle). */
  private Made make(int size, String alg, int blockSize, String salt) throws Exception {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    Path file = dir.resolve("f");
    Files.write(file, bytes);
    Fsverity.Digest d = Fsverity.digest(file, alg, blockSize, salt);
    return new Made(file, d.tree(), d.digest(), bytes);
  }

  private ToolRun cat(Made m, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "cat",
                m.file().toString(),
                "--merkle-tree=" + m.tree(),
                "--digest=" + m.digest(),
                "-o",
                dir.resolve("out").toString()));
    args.addAll(List.of(extra));
    return Jverity.run(args);
  }

  /**
   * As {@link #cat} without -o: stdout (captured in "out"), where the bytes before a bad block go.
   */
  private ToolRun catToStdout(Made m) throws Exception {
    return ChildJverity.run(
        dir.resolve("out"),
        "cat",
        m.file().toString(),
        "--merkle-tree=" + m.tree(),
        "--digest=" + m.digest());
  }

  private byte[] out() throws IOException {
    return Files.readAllBytes(dir.resolve("out"));
  }

  private static void flip(Path file, long at) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[(int) at] ^= 1;
    Files.write(file, b);
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "0, sha256, 4096, ''",
    "1, sha256, 4096, ''",
    "4095, sha512, 4096, abcd",
    "4096, sha256, 1024, ''",
    "4097, sha256, 4096, 00",
    "5242880, sha256, 4096, ''",
    "5242881, sha512, 1024, 0011223344556677"
  })
  void writesTheFileExactly(int size, String alg, int blockSize, String salt) throws Exception {
    Made m = make(size, alg, blockSize, salt);
    List<String> extra = new ArrayList<>(List.of("--block-size=" + blockSize, "--hash-alg=" + alg));
    if (!salt.isEmpty()) {
      extra.add("--salt=" + salt);
    }
    ToolRun r = cat(m, extra.toArray(String[]::new));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.stderr()).isEmpty();
    assertThat(out()).isEqualTo(m.bytes());
  }

  @Test
  void aDigestWithoutItsAlgorithmIsTheHashAlgsDigest() throws Exception {
    Made m = make(10_000, "sha512", 4096, "");
    ToolRun r =
        Jverity.run(
            "cat",
            m.file().toString(),
            "--merkle-tree",
            m.tree().toString(),
            "--digest",
            m.digest().substring("sha512:".length()),
            "--hash-alg",
            "sha512",
            "-o",
            dir.resolve("out").toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(out()).isEqualTo(m.bytes());
  }

  @ParameterizedTest(name = "byte {0} flipped")
  @CsvSource({"0", "4096", "1048575", "1048576", "3000000", "5242880"})
  void stopsAtTheFirstDamagedBlockAfterWritingEveryByteBeforeIt(int at) throws Exception {
    Made m = make(5 * 1024 * 1024 + 1, "sha256", 4096, "");
    flip(m.file(), at);
    ToolRun r = cat(m);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderrLines())
        .containsExactly("jverity: " + m.file() + ": data block " + at / 4096 + " is corrupted");
    assertThat(dir.resolve("out")).as("-o is written on success only").doesNotExist();
    ToolRun s = catToStdout(m);
    assertThat(s.exitCode()).as("%s", s).isEqualTo(ExitCode.CORRUPTION);
    assertThat(out()).isEqualTo(Arrays.copyOf(m.bytes(), at / 4096 * 4096));
  }

  @Test
  void aDamagedTreeBlockStopsAtTheFirstBlockUnderIt() throws Exception {
    Made m =
        make(5 * 1024 * 1024, "sha256", 4096, ""); // 1280 blocks: tree levels of 10 and 1 blocks
    flip(m.tree(), 4096 * 4 + 7); // level 0, its 4th block: data blocks 384..511
    ToolRun r = cat(m);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderrLines())
        .containsExactly("jverity: " + m.tree() + ": hash block 4 (level 0) is corrupted");
    assertThat(dir.resolve("out")).as("-o is written on success only").doesNotExist();
    assertThat(catToStdout(m).exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(out()).isEqualTo(Arrays.copyOf(m.bytes(), 384 * 4096));
  }

  @Test
  void aDigestThatIsNotTheFilesIsExit7AndWritesNothing() throws Exception {
    Made m = make(100_000, "sha256", 4096, "");
    Made wrong = new Made(m.file(), m.tree(), "sha256:" + "ab".repeat(32), m.bytes());
    ToolRun r = cat(wrong);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith(
            "jverity: "
                + m.file()
                + ": fs-verity digest is "
                + m.digest()
                + ", expected sha256:abab");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void theWrongSaltIsADigestMismatch() throws Exception {
    Made m = make(100_000, "sha256", 4096, "abcd");
    ToolRun r = cat(m); // no --salt
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--hash-alg=sha512|3|--hash-alg: sha512 (expected: sha256, as --digest says)",
        "--hash-alg=sha3-256|3|--hash-alg: sha3-256 (expected: sha256 or sha512)",
        "--hash-alg=tiger|3|--hash-alg: tiger (expected: sha256 or sha512)",
        "--salt=zz|3|--salt: zz (expected: an even number of hex digits)",
        "--block-size=1000|3|--block-size: 1000 (expected: a power of two",
        "--salt=00112233445566778899001122334455667788990011223344556677889900112233|3|(expected: at most 32 bytes in hex)"
      })
  void badParametersAreExit3(String option, int code, String message) throws Exception {
    Made m = make(1000, "sha256", 4096, "");
    ToolRun r = cat(m, option);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(code);
    assertThat(r.stderrLines()).singleElement().asString().contains(message);
  }

  /**
   * {@code fsverity sign} of {@code m} by {@code signer.key} (made in {@code dir} if missing): the
   * signature file.
   */
  private Path sign(Made m, String... options) throws Exception {
    if (!Files.exists(dir.resolve("signer.key"))) {
      SigTools.rsa(dir, "signer");
      SigTools.rsa(dir, "other");
    }
    Path sig = dir.resolve(m.file().getFileName() + ".sig");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "sign",
                m.file().toString(),
                sig.toString(),
                "--key=signer.key",
                "--cert=signer.crt"));
    cmd.addAll(List.of(options));
    Fsverity.tool().in(dir).check(cmd);
    return sig;
  }

  /**
   * {@code cat} of {@code m} trusting its signature {@code sig} if one of {@code certs} made it.
   */
  private ToolRun catSigned(Made m, Path sig, List<String> certs, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "cat",
                m.file().toString(),
                "--merkle-tree=" + m.tree(),
                "--signature=" + sig,
                "-o",
                dir.resolve("out").toString()));
    certs.forEach(c -> args.add("--trusted-cert=" + dir.resolve(c)));
    args.addAll(List.of(extra));
    return Jverity.run(args);
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({"0, sha256, 4096, ''", "5242881, sha256, 4096, ''", "100000, sha512, 1024, abcd"})
  void aSignatureByATrustedCertificateWritesTheFileExactly(
      int size, String alg, int blockSize, String salt) throws Exception {
    Made m = make(size, alg, blockSize, salt);
    List<String> options =
        new ArrayList<>(List.of("--hash-alg=" + alg, "--block-size=" + blockSize));
    if (!salt.isEmpty()) {
      options.add("--salt=" + salt);
    }
    Path sig = sign(m, options.toArray(String[]::new));
    ToolRun r =
        catSigned(m, sig, List.of("other.crt", "signer.crt"), options.toArray(String[]::new));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.stderr()).isEmpty();
    assertThat(out()).isEqualTo(m.bytes());
  }

  @Test
  void aSignatureNoTrustedCertificateMadeIsExit14AndWritesNothing() throws Exception {
    Made m = make(100_000, "sha256", 4096, "");
    ToolRun r = catSigned(m, sign(m), List.of("other.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: fs-verity signature: signed by ")
        .contains("CN=signer", "no trusted certificate");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void aForgedSignatureOrOneOfAnotherFileIsExit14AndWritesNothing() throws Exception {
    Made m = make(100_000, "sha256", 4096, "");
    Path forged = SigTools.flipped(sign(m), 3);
    ToolRun r = catSigned(m, forged, List.of("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: fs-verity signature: ")
        .contains("does not verify");
    Path otherFile = Files.write(dir.resolve("g"), new byte[100_000]);
    Path otherSig = sign(new Made(otherFile, m.tree(), null, null));
    r = catSigned(m, otherSig, List.of("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void underASignatureADamagedBlockStillStopsTheCopyThere() throws Exception {
    Made m = make(5 * 1024 * 1024, "sha256", 4096, "");
    Path sig = sign(m);
    flip(m.file(), 3_000_000);
    ToolRun r = catSigned(m, sig, List.of("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderrLines())
        .containsExactly(
            "jverity: " + m.file() + ": data block " + 3_000_000 / 4096 + " is corrupted");
    assertThat(dir.resolve("out")).as("-o is written on success only").doesNotExist();
  }

  @Test
  void aDigestOrASignatureWithTrustedCertificatesIsRequired() throws Exception {
    Made m = make(1000, "sha256", 4096, "");
    Path sig = sign(m);
    String[][] cases = {
      {"cat needs --digest, or --signature with --trusted-cert"},
      {"--signature needs --trusted-cert", "--signature=" + sig},
      {
        "--trusted-cert needs --signature",
        "--digest=" + m.digest(),
        "--trusted-cert=" + dir.resolve("signer.crt")
      },
      {
        "give --digest or --signature, not both",
        "--digest=" + m.digest(),
        "--signature=" + sig,
        "--trusted-cert=" + dir.resolve("signer.crt")
      }
    };
    for (String[] c : cases) {
      List<String> args =
          new ArrayList<>(List.of("cat", m.file().toString(), "--merkle-tree=" + m.tree()));
      args.addAll(List.of(c).subList(1, c.length));
      ToolRun r = Jverity.run(args);
      assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.USAGE);
      assertThat(r.stderr()).isEqualTo("jverity: " + c[0] + "\n");
    }
  }

  @Test
  void theTreeAndDigestAreRequired() throws Exception {
    Made m = make(1000, "sha256", 4096, "");
    ToolRun r = Jverity.run("cat", m.file().toString(), "--digest", m.digest());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.USAGE);
    assertThat(r.stderr()).contains("--merkle-tree");
  }
}
