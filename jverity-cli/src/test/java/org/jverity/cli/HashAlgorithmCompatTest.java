package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.cli.command.ExitCode;
import org.jverity.format.HashNames;
import org.jverity.testkit.Openssl;

/**
 * Every hash algorithm veritysetup takes here, against veritysetup itself: Debian's 2.6.1 hashes
 * with OpenSSL 3.0 and loads its legacy provider (md4, whirlpool), so it takes every digest name
 * OpenSSL 3.0 knows. For each, both tools format the same data with the same salt and UUID and must
 * write the same hash file and root hash, print the same header, and accept each other's tree;
 * {@code dump} prints what veritysetup prints. Names are written to the superblock as given (in
 * lower case), so every alias is compared too. A missing veritysetup (or openssl, which lists the
 * names) fails these tests; they never skip.
 */
@Execution(
    ExecutionMode.CONCURRENT) // each case has its own files; most time is spent in veritysetup
class HashAlgorithmCompatTest {
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";

  /** Each digest veritysetup takes here, by the name jverity registers it under. */
  static final List<String> ACCEPTED =
      List.of(
          "sha1",
          "sha224",
          "sha256",
          "sha384",
          "sha512",
          "sha512-224",
          "sha512-256",
          "sha3-224",
          "sha3-256",
          "sha3-384",
          "sha3-512",
          "shake128",
          "shake256",
          "blake2b-512",
          "blake2s-256",
          "sm3",
          "ripemd160",
          "whirlpool",
          "md5",
          "md4",
          "md5-sha1",
          "keccak-kmac-128",
          "keccak-kmac-256");

  /**
   * Names veritysetup built with libgcrypt or the kernel's crypto API takes and this one refuses
   * (OpenSSL has no Streebog without the GOST engine, and BLAKE2 at these lengths under no name).
   */
  static final List<String> GCRYPT_ONLY =
      List.of(
          "stribog256",
          "stribog512",
          "blake2b-384",
          "blake2b-256",
          "blake2b-160",
          "blake2s-224",
          "blake2s-160",
          "blake2s-128");

  /**
   * One formatting job of the matrix.
   *
   * @param alg the hash name given to both tools
   * @param format hash type, 0 or 1
   * @param blockSize data and hash block size, bytes
   * @param salt hex, or "-" for none
   */
  record Case(String alg, int format, int blockSize, String salt) {
    /** Enough blocks for three levels or more at 512 bytes, two at 4 KiB, whatever the digest. */
    int dataBlocks() {
      return blockSize == 512 ? 1000 : 300;
    }

    List<String> options() {
      return List.of(
          "--hash",
          alg,
          "--format",
          String.valueOf(format),
          "--data-block-size",
          String.valueOf(blockSize),
          "--hash-block-size",
          String.valueOf(blockSize),
          "--salt",
          salt);
    }

    @Override
    public String toString() {
      return alg
          + " v"
          + format
          + " "
          + blockSize
          + " salt="
          + (salt.equals("-") ? "none" : salt.length() / 2 + "B");
    }
  }

  static Stream<Case> matrix() {
    String salt = HexFormat.of().formatHex(bytes(32, 5));
    List<Case> cases = new ArrayList<>();
    for (String alg : ACCEPTED) {
      for (int format : new int[] {0, 1}) {
        for (int bs : new int[] {512, 4096}) {
          for (String s : new String[] {"-", salt}) {
            cases.add(new Case(alg, format, bs, s));
          }
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("matrix")
  void formatVerifyAndDumpMatchVeritysetup(Case c, @TempDir Path dir) throws IOException {
    Path data =
        Files.write(
            dir.resolve("data.img"),
            bytes(c.dataBlocks() * c.blockSize(), c.toString().hashCode()));
    compare(c.toString(), dir, data, c.options());
  }

  /**
   * Every name OpenSSL lists for its digests (the providers veritysetup loads), and the same in
   * upper case: veritysetup and jverity take the same ones, and write the same bytes for each.
   */
  @Test
  void everyNameOpenSslListsIsTakenByBothOrByNeither(@TempDir Path dir) throws IOException {
    Path data = Files.write(dir.resolve("data.img"), bytes(200 * 4096, 1));
    TreeSet<String> names = new TreeSet<>(openSslDigestNames());
    assertThat(names)
        .as("names openssl lists")
        .contains("SHA2-256", "BLAKE2B-512", "whirlpool", "MD4", "SM3");
    names.add("sha256");
    names.add("Sha3-256");
    List<String> accepted = new ArrayList<>();
    for (String name : names) {
      List<String> options = List.of("--hash", name, "--salt", "00ff");
      ToolRun vs = VeritysetupOracle.run(args("format", data, dir.resolve("probe.hash"), options));
      if (vs.exitCode() == 0) {
        accepted.add(name);
        compare(name, dir, data, options);
        assertThat(Files.readString(dir.resolve("vs.hash"), StandardCharsets.ISO_8859_1))
            .as("the superblock holds the name as given, in lower case")
            .contains(name.toLowerCase(Locale.ROOT) + "\0");
      } else {
        ToolRun jv = Jverity.run(args("format", data, dir.resolve("jv.hash"), options));
        assertThat(jv.exitCode())
            .as("veritysetup refuses %s (%s), so must jverity\n%s", name, vs.stderr(), jv)
            .isEqualTo(ExitCode.UNSUPPORTED_HASH);
        assertThat(jv.stderrLines()).as("%s", jv).hasSize(1);
        assertThat(jv.stderr())
            .startsWith("jverity: hash algorithm: " + name + " (not supported; expected: sha1, ");
      }
    }
    for (String name : ACCEPTED) {
      assertThat(accepted.stream().anyMatch(name::equalsIgnoreCase))
          .as("openssl lists %s", name)
          .isTrue();
    }
  }

  /** Names nothing here takes: both refuse them, jverity in one line with its own exit code. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "tiger",
        "null",
        "wp512",
        "streebog256",
        "blake2b",
        "sha512/256",
        "rsa-sha256",
        "x"
      })
  void namesNeitherTakesAreRefusedByBoth(String name, @TempDir Path dir) throws IOException {
    Path data = Files.write(dir.resolve("data.img"), bytes(16 * 4096, 2));
    List<String> options = List.of("--hash", name);
    ToolRun vs = VeritysetupOracle.run(args("format", data, dir.resolve("vs.hash"), options));
    assertThat(vs.exitCode()).as("%s", vs).isNotZero();
    assertThat(vs.stderr()).contains("Hash algorithm " + name + " not supported.");
    ToolRun jv = Jverity.run(args("format", data, dir.resolve("jv.hash"), options));
    assertThat(jv.exitCode()).as("%s", jv).isEqualTo(ExitCode.UNSUPPORTED_HASH);
    assertThat(jv.stdout()).isEmpty();
    assertThat(jv.stderrLines()).hasSize(1);
    assertThat(jv.stderr())
        .startsWith("jverity: hash algorithm: " + name + " (not supported; expected: ")
        .contains("sha256, ", "blake2b-512, ", "sm3, ", "stribog512, ");
    assertThat(dir.resolve("jv.hash")).doesNotExist();
  }

  /**
   * The libgcrypt and kernel-backend names this veritysetup refuses: jverity formats with them (its
   * digests are checked against libgcrypt's in {@link VeritysetupHashesTest}), verifies its own
   * tree, and dumps the name.
   */
  @ParameterizedTest
  @MethodSource("gcryptOnly")
  void gcryptNamesWorkInJverityAndThisVeritysetupRefusesThem(String name, @TempDir Path dir)
      throws IOException {
    Path data = Files.write(dir.resolve("data.img"), bytes(300 * 512, 3));
    List<String> options =
        List.of(
            "--hash", name, "--data-block-size", "512", "--hash-block-size", "512", "--uuid", UUID);
    ToolRun vs = VeritysetupOracle.run(args("format", data, dir.resolve("vs.hash"), options));
    assertThat(vs.exitCode()).as("this veritysetup (OpenSSL) refuses %s\n%s", name, vs).isNotZero();
    Path hash = dir.resolve("jv.hash");
    ToolRun jv = Jverity.run(args("format", data, hash, options));
    assertThat(jv.exitCode()).as("%s", jv).isZero();
    String root = jv.headerField("Root hash");
    assertThat(root).hasSize(2 * HashNames.fromName(name).digestSize());
    ToolRun verify = Jverity.run("verify", data.toString(), hash.toString(), root);
    assertThat(verify.exitCode()).as("%s", verify).isZero();
    ToolRun dump = Jverity.run("dump", hash.toString());
    assertThat(dump.headerField("Hash algorithm")).isEqualTo(name);
    try (var f =
        new java.io.RandomAccessFile(data.toFile(), "rw")) { // flip one bit of data block 0
      int b = f.read();
      f.seek(0);
      f.write(b ^ 1);
    }
    assertThat(Jverity.run("verify", data.toString(), hash.toString(), root).exitCode())
        .isEqualTo(ExitCode.CORRUPTION);
  }

  static Stream<String> gcryptOnly() {
    return GCRYPT_ONLY.stream();
  }

  /**
   * A sound superblock naming a hash jverity cannot compute (as a libgcrypt veritysetup could
   * write, e.g. tiger): dump shows every stored field, as veritysetup's lines; verify says in one
   * line that the algorithm is not supported, with its own exit code.
   */
  @Test
  void aSuperblockWithAnUnknownAlgorithmIsDumpedButNotVerified(@TempDir Path dir)
      throws IOException {
    Path data = Files.write(dir.resolve("data.img"), bytes(16 * 4096, 4));
    Path hash = dir.resolve("tiger.hash");
    ToolRun vs =
        VeritysetupOracle.run(
            args("format", data, hash, List.of("--uuid", UUID, "--salt", "abcd")));
    assertThat(vs.exitCode()).as("%s", vs).isZero();
    List<String> before = VeritysetupOracle.run("dump", hash.toString()).stdoutLines();
    try (var f = java.nio.channels.FileChannel.open(hash, java.nio.file.StandardOpenOption.WRITE)) {
      f.write(java.nio.ByteBuffer.wrap(new byte[32]), 32);
      f.write(java.nio.ByteBuffer.wrap("tiger".getBytes(StandardCharsets.US_ASCII)), 32);
    }

    ToolRun dump = Jverity.run("dump", hash.toString());
    assertThat(dump.exitCode()).as("%s", dump).isZero();
    List<String> want = new ArrayList<>();
    for (String line : before) {
      if (line.startsWith("Hash algorithm:")) {
        want.add("Hash algorithm:  \ttiger");
      } else if (!line.startsWith("Hash blocks:") && !line.startsWith("Hash device size:")) {
        want.add(line);
      }
    }
    assertThat(dump.stdoutLines()).isEqualTo(want);
    assertThat(dump.stderr())
        .isEqualTo(
            "jverity: "
                + hash
                + ": hash algorithm tiger (from the superblock) is not"
                + " supported by jverity (hash blocks and sizes not shown)\n");
    ToolRun json = Jverity.run("dump", hash.toString(), "--json");
    assertThat(json.exitCode()).isZero();
    assertThat(json.stdout())
        .contains(
            "\"hashAlgorithm\": \"tiger\"",
            "\"hashAlgorithmSupported\": false",
            "\"salt\": \"abcd\"",
            "\"dataBlocks\": 16");

    ToolRun verify = Jverity.run("verify", data.toString(), hash.toString(), "00".repeat(32));
    assertThat(verify.exitCode()).as("%s", verify).isEqualTo(ExitCode.UNSUPPORTED_HASH);
    assertThat(verify.stdout()).isEmpty();
    assertThat(verify.stderr())
        .isEqualTo(
            "jverity: "
                + hash
                + ": hash algorithm tiger (from the superblock) is not supported by jverity\n");
    // veritysetup refuses to read such a superblock at all.
    assertThat(VeritysetupOracle.run("dump", hash.toString()).stderr())
        .contains("Hash algorithm tiger not supported.");
  }

  /**
   * {@code --hash} and an identity name a digest, whatever the spelling: sha-256 agrees with a
   * sha256 superblock, sha512 does not, and an identity naming an unknown algorithm is refused as
   * unsupported.
   */
  @Test
  void anotherNameOfTheSameDigestAgreesWithTheSuperblock(@TempDir Path dir) throws IOException {
    Path data = Files.write(dir.resolve("data.img"), bytes(16 * 4096, 6));
    Path hash = dir.resolve("data.hash");
    ToolRun format = Jverity.run(args("format", data, hash, List.of("--salt", "abcd")));
    assertThat(format.exitCode()).as("%s", format).isZero();
    String root = format.headerField("Root hash");
    String id = format.headerField("Identity");
    assertThat(id).startsWith("verity1:sha256:");

    ToolRun alias = Jverity.run(args("verify", data, hash, List.of(root, "--hash", "SHA2-256")));
    assertThat(alias.exitCode()).as("%s", alias).isZero();
    ToolRun other = Jverity.run(args("verify", data, hash, List.of(root, "--hash", "sha512")));
    assertThat(other.exitCode()).as("%s", other).isEqualTo(ExitCode.SUPERBLOCK_MISMATCH);
    assertThat(other.stderr()).contains("hash algorithm sha256 (option: sha512)");
    ToolRun aliasId =
        Jverity.run(args("verify", data, hash, List.of(id.replace(":sha256:", ":sha-256:"))));
    assertThat(aliasId.exitCode()).as("%s", aliasId).isZero();
    ToolRun tigerId =
        Jverity.run(args("verify", data, hash, List.of(id.replace(":sha256:", ":tiger:"))));
    assertThat(tigerId.exitCode()).as("%s", tigerId).isEqualTo(ExitCode.UNSUPPORTED_HASH);
    assertThat(tigerId.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: identity: hash algorithm: tiger (not supported; expected: sha1, ");
  }

  /**
   * Formats {@code data} with both tools and compares everything: hash files, root hashes, the
   * header, each tool's verify of the other's tree, and dump of both files. Leaves vs.hash and
   * jv.hash in {@code dir}.
   */
  private static void compare(String what, Path dir, Path data, List<String> formatOptions)
      throws IOException {
    Path vsHash = dir.resolve("vs.hash");
    Path jvHash = dir.resolve("jv.hash");
    Files.deleteIfExists(vsHash);
    Files.deleteIfExists(jvHash);
    List<String> options = new ArrayList<>(formatOptions);
    options.addAll(List.of("--uuid", UUID));
    ToolRun vs = VeritysetupOracle.run(args("format", data, vsHash, options));
    ToolRun jv = Jverity.run(args("format", data, jvHash, options));
    assertThat(vs.exitCode()).as("veritysetup format, %s\n%s", what, vs).isZero();
    assertThat(jv.exitCode()).as("jverity format, %s\n%s", what, jv).isZero();
    assertThat(jv.stderr()).as("jverity format stderr, %s", what).isEmpty();
    String root = vs.headerField("Root hash");
    assertThat(jv.headerField("Root hash")).as("root hash, %s", what).isEqualTo(root);
    List<String> v = vs.stdoutLines();
    List<String> j = jv.stdoutLines();
    assertThat(j.subList(1, j.size() - 1))
        .as("header after the device line, %s", what)
        .isEqualTo(v.subList(1, v.size()));
    assertThat(j.getLast())
        .as("jverity's identity line, %s", what)
        .startsWith("Identity:        \tverity1:");
    byte[] vsBytes = Files.readAllBytes(vsHash);
    byte[] jvBytes = Files.readAllBytes(jvHash);
    assertThat(jvBytes.length).as("hash file length, %s", what).isEqualTo(vsBytes.length);
    assertThat(java.util.Arrays.mismatch(jvBytes, vsBytes))
        .as("first differing byte of the hash files, %s", what)
        .isEqualTo(-1);

    ToolRun vsVerify = VeritysetupOracle.run("verify", data.toString(), jvHash.toString(), root);
    assertThat(vsVerify.exitCode())
        .as("veritysetup verify of jverity's tree, %s\n%s", what, vsVerify)
        .isZero();
    ToolRun jvVerify = Jverity.run("verify", data.toString(), vsHash.toString(), root);
    assertThat(jvVerify.exitCode())
        .as("jverity verify of veritysetup's tree, %s\n%s", what, jvVerify)
        .isZero();
    assertThat(jvVerify.stdout() + jvVerify.stderr())
        .as("jverity verify output, %s", what)
        .isEmpty();

    for (Path hash : List.of(vsHash, jvHash)) {
      ToolRun vsDump = VeritysetupOracle.run("dump", hash.toString());
      ToolRun jvDump = Jverity.run("dump", hash.toString());
      assertThat(vsDump.exitCode()).as("veritysetup dump, %s\n%s", what, vsDump).isZero();
      assertThat(jvDump.exitCode()).as("jverity dump, %s\n%s", what, jvDump).isZero();
      assertThat(jvDump.stdout())
          .as("dump of %s, %s", hash.getFileName(), what)
          .isEqualTo(vsDump.stdout());
    }
  }

  /**
   * The names {@code openssl list -digest-algorithms} gives for the default and legacy providers'
   * digests.
   */
  private static List<String> openSslDigestNames() {
    String out =
        Openssl.tool()
            .check("list", "-digest-algorithms", "-provider", "default", "-provider", "legacy")
            .out();
    // Provided lines: "  { 2.16.840.1.101.3.4.2.1, SHA-256, SHA2-256, SHA256 } @ default" or "
    // MD5-SHA1 @ default"
    List<String> names = new ArrayList<>();
    for (String line : out.substring(out.indexOf("Provided:")).lines().toList()) {
      int at = line.indexOf(" @ ");
      if (at > 0) {
        for (String n : line.substring(0, at).replace("{", "").replace("}", "").split(",")) {
          if (!n.isBlank()) {
            names.add(n.strip());
          }
        }
      }
    }
    return names;
  }

  private static List<String> args(String command, Path data, Path hash, List<String> options) {
    List<String> a = new ArrayList<>(List.of(command, data.toString(), hash.toString()));
    a.addAll(options);
    return a;
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }
}
