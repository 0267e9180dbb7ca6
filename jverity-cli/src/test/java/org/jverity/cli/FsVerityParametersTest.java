package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;

/**
 * digest, sign, verify-sig and cat accept the same fs-verity parameters, and exactly those {@code
 * fsverity digest} accepts: one option group, refused by the one parameter record. When fsverity
 * accepts, the digest each command works with is fsverity's.
 */
class FsVerityParametersTest {
  private static final String NO_SALT = "none";
  private static Path dir;
  private static Path file;

  @BeforeAll
  static void fileAndKey() throws Exception {
    dir = Files.createTempDirectory("jverity-fsverity-params");
    file = dir.resolve("f");
    byte[] b = new byte[100_000];
    new Random(15).nextBytes(b);
    Files.write(file, b);
    SigTools.rsa(dir, "signer");
  }

  @ParameterizedTest(name = "{0} --block-size={1} --salt={2}")
  @CsvSource({
    "sha256, 32, none",
    "sha256, 64, none",
    "sha256, 512, none",
    "sha256, 1000, none",
    "sha256, 1024, none",
    "sha256, 4096, none",
    "sha256, 65536, none",
    "sha256, 131072, none",
    "sha256, 2097152, none",
    "sha512, 64, none",
    "sha512, 128, none",
    "sha512, 2097152, 5a",
    "sha256, 4096, ''",
    "sha256, 4096, -",
    "sha256, 4096, 5a",
    "sha256, 4096, abc",
    "sha256, 4096, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "sha256, 4096, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
  })
  void acceptWhatFsverityAcceptsWithItsDigest(String alg, int blockSize, String salt)
      throws Exception {
    List<String> opts = new ArrayList<>(List.of("--hash-alg=" + alg, "--block-size=" + blockSize));
    if (!salt.equals(NO_SALT)) {
      opts.add("--salt=" + salt);
    }
    Path tree = dir.resolve("f.merkle");
    Files.deleteIfExists(tree);
    List<String> theirs = new ArrayList<>(List.of(file.toString(), "--out-merkle-tree=" + tree));
    theirs.addAll(opts);
    ToolRun fsverity = DigestCommandTest.fsverity(theirs);
    boolean accepted = fsverity.exitCode() == 0;
    String digest =
        accepted ? fsverity.stdout().substring(0, fsverity.stdout().indexOf(' ')) : "sha256:00";
    if (!accepted) {
      Files.write(tree, new byte[4096]);
    }

    ToolRun d = Jverity.run(with(opts, "digest", file.toString()));
    expect(d, accepted);
    if (accepted) {
      assertThat(d.stdout()).isEqualTo(fsverity.stdout());
    }

    Path sig = dir.resolve("f.sig");
    Files.deleteIfExists(sig);
    ToolRun s =
        Jverity.run(
            with(
                opts,
                "sign",
                file.toString(),
                sig.toString(),
                "--key=" + dir.resolve("signer.key"),
                "--cert=" + dir.resolve("signer.crt")));
    expect(s, accepted);
    if (accepted) {
      assertThat(s.stdout()).isEqualTo("Signed file '" + file + "' (" + digest + ")\n");
    } else {
      Files.write(sig, new byte[16]);
    }

    ToolRun v =
        Jverity.run(
            with(
                opts,
                "verify-sig",
                file.toString(),
                sig.toString(),
                "--cert=" + dir.resolve("signer.crt")));
    expect(v, accepted);
    if (accepted) {
      assertThat(v.stdout())
          .startsWith("Verified file '" + file + "' (" + digest + "), signed by ");
    }

    Path out = dir.resolve("out");
    Files.deleteIfExists(out);
    ToolRun c =
        Jverity.run(
            with(
                opts,
                "cat",
                file.toString(),
                "--merkle-tree=" + tree,
                "--digest=" + digest,
                "-o",
                out.toString()));
    expect(c, accepted);
    if (accepted) {
      assertThat(out).hasSameBinaryContentAs(file);
    }
  }

  private static List<String> with(List<String> opts, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(opts);
    return all;
  }

  /**
   * Accepted and done, or refused as an invalid parameter in one line, before anything is written.
   */
  private static void expect(ToolRun r, boolean accepted) {
    if (accepted) {
      assertThat(r.exitCode()).as("%s", r).isZero();
    } else {
      assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
      assertThat(r.stdout()).isEmpty();
      assertThat(r.stderrLines()).as("%s", r).singleElement().asString().startsWith("jverity: ");
    }
  }
}
