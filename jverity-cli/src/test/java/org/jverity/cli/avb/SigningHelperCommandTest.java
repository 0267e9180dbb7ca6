package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.KEY_4096;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.key;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Tool;

/**
 * {@code --signing_helper} and {@code --signing_helper_with_files}: helpers that hold the private
 * key and sign with openssl as avbtool itself does ({@code rsautl -sign -raw}), given only the
 * public key as {@code --key}. RSA PKCS#1 v1.5 is deterministic, so an image a helper signed must
 * be byte for byte the one signed in-process with the private key.
 */
class SigningHelperCommandTest {
  @TempDir Path dir;
  Path publicKey;

  @BeforeEach
  void publicKey() throws Exception {
    publicKey = dir.resolve("testkey_rsa4096.pub.pem");
    Tool.of("openssl")
        .run("rsa", "-in", key(KEY_4096), "-pubout", "-out", publicKey.toString())
        .ok();
  }

  /** A helper script: its arguments logged to {@code args.txt}, then {@code body}. */
  private Path helper(String name, String body) throws IOException {
    Path script = dir.resolve(name);
    Files.writeString(
        script, "#!/bin/sh\necho \"$@\" > " + dir.resolve("args.txt") + "\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  private static String rsautl(String privateKey) {
    return "openssl rsautl -sign -raw -inkey " + privateKey + " 2>/dev/null";
  }

  /** A 1 MiB system image given its footer, SHA256_RSA4096, signed as {@code signing} says. */
  private static ToolRun add(Path img, Object... signing) {
    Object[] fixed = {
      "--image",
      img,
      "--partition_name",
      "system",
      "--partition_size",
      2 << 20,
      "--salt",
      "00",
      "--algorithm",
      "SHA256_RSA4096"
    };
    return avb("add_hashtree_footer", concat(fixed, signing));
  }

  private Path signedInProcess(String name) throws IOException {
    Path img = pattern(dir.resolve(name), 1 << 20);
    ToolRun r = add(img, "--key", key(KEY_4096));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return img;
  }

  private ToolRun addWithHelper(Path img, String option, Path helper) {
    return add(img, "--key", publicKey, option, helper);
  }

  @Test
  void aHelperOnPipesSignsTheSameBytesAsThePrivateKey() throws Exception {
    Path expected = signedInProcess("expected.img");
    Path img = pattern(dir.resolve("system.img"), 1 << 20);
    Path helper = helper("sign.sh", rsautl(key(KEY_4096)));
    ToolRun r = addWithHelper(img, "--signing_helper", helper);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(Files.readString(dir.resolve("args.txt")).strip())
        .as("avbtool's argv: the algorithm and the --key path")
        .isEqualTo("SHA256_RSA4096 " + publicKey);
    assertThat(read(img)).isEqualTo(read(expected));
    assertThat(ok("verify_image", "--image", img, "--key", publicKey).stdout())
        .contains("Successfully verified");
  }

  @Test
  void aHelperWithFilesSignsInTheFileItIsGiven() throws Exception {
    Path expected = signedInProcess("expected.img");
    Path img = pattern(dir.resolve("system.img"), 1 << 20);
    Path helper =
        helper(
            "sign-files.sh",
            rsautl(key(KEY_4096)).replace(" 2>", " -in \"$3\" -out \"$3.sig\" 2>")
                + " && mv \"$3.sig\" \"$3\"\necho signed by the token");
    ToolRun r = addWithHelper(img, "--signing_helper_with_files", helper);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    String[] args = Files.readString(dir.resolve("args.txt")).strip().split(" ");
    assertThat(args).hasSize(3);
    assertThat(List.of(args[0], args[1])).containsExactly("SHA256_RSA4096", publicKey.toString());
    assertThat(Path.of(args[2])).as("the file is removed after").doesNotExist();
    assertThat(read(img)).isEqualTo(read(expected));
    assertThat(r.stdout()).as("the helper's stdout is not the command's").isEmpty();
  }

  @Test
  void makeVbmetaImageAndAddHashFooterTakeAHelperToo() throws Exception {
    Path helper = helper("sign.sh", rsautl(key(KEY_4096)));
    Path boot = pattern(dir.resolve("boot.img"), 100_000);
    Path expectedBoot = pattern(dir.resolve("boot-expected.img"), 100_000);
    Object[] common = {
      "--partition_name",
      "boot",
      "--partition_size",
      1 << 20,
      "--salt",
      "00",
      "--algorithm",
      "SHA256_RSA4096"
    };
    assertSignedAsByTheKey(
        "add_hash_footer",
        helper,
        concat(common, "--image", boot),
        concat(common, "--image", expectedBoot));
    assertThat(read(boot)).isEqualTo(read(expectedBoot));

    Path v = dir.resolve("vbmeta.img");
    Path expectedV = dir.resolve("vbmeta-expected.img");
    Object[] vb = {"--algorithm", "SHA256_RSA4096", "--include_descriptors_from_image", boot};
    assertSignedAsByTheKey(
        "make_vbmeta_image", helper, concat(vb, "--output", v), concat(vb, "--output", expectedV));
    assertThat(read(v)).isEqualTo(read(expectedV));
  }

  /**
   * Runs {@code subcommand} with {@code withHelper} signed by the helper, {@code inProcess} by the
   * key.
   */
  private void assertSignedAsByTheKey(
      String subcommand, Path helper, Object[] withHelper, Object[] inProcess) {
    ToolRun r = avb(subcommand, concat(withHelper, "--key", publicKey, "--signing_helper", helper));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    ok(subcommand, concat(inProcess, "--key", key(KEY_4096)));
  }

  @Test
  void aHelperSigningWithAnotherKeyIsRefusedAndTheImageIsLeftAsItWas() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 1 << 20);
    byte[] before = read(img);
    // openssl's 4096-bit key of the right size, but not the key --key names
    Path other = dir.resolve("other.pem");
    Tool.of("openssl").run("genrsa", "-out", other.toString(), "4096").ok();
    ToolRun r = addWithHelper(img, "--signing_helper", helper("sign.sh", rsautl(other.toString())));
    assertThat(r.exitCode()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderr())
        .isEqualTo(
            "jverity: --signing_helper "
                + dir.resolve("sign.sh")
                + ": gave a signature that does not verify with the key in "
                + publicKey
                + "\n");
    assertThat(read(img)).as("the tree written before signing is taken back").isEqualTo(before);
  }

  @Test
  void aHelperThatFailsSaysWhyInOneLine() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 1 << 20);
    byte[] before = read(img);
    Path failing =
        helper(
            "fail.sh", "cat >/dev/null; echo 'reading the token' >&2; echo 'no token' >&2; exit 3");
    ToolRun r = addWithHelper(img, "--signing_helper", failing);
    assertThat(r.exitCode()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderr())
        .isEqualTo("jverity: --signing_helper " + failing + ": exited with status 3: no token\n");
    assertThat(read(img)).isEqualTo(before);

    Path shortOne = helper("short.sh", "cat >/dev/null; printf abc");
    r = addWithHelper(img, "--signing_helper", shortOne);
    assertThat(r.exitCode()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderr())
        .isEqualTo(
            "jverity: --signing_helper "
                + shortOne
                + ": gave 3 bytes (expected: a 512-byte SHA256_RSA4096 signature)\n");
    // a helper that never reads its stdin and prints 100 MB: a signature and a byte kept, the rest
    // drained so that it can exit
    Path endless = helper("endless.sh", "head -c 100000000 /dev/zero");
    r = addWithHelper(img, "--signing_helper", endless);
    assertThat(r.exitCode()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(r.stderr()).contains("gave 513 bytes (expected: a 512-byte");

    r = addWithHelper(img, "--signing_helper", dir.resolve("missing.sh"));
    assertThat(r.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderr())
        .startsWith("jverity: --signing_helper " + dir.resolve("missing.sh") + ": cannot run it: ")
        .doesNotContain("\n\t");
    assertThat(read(img)).isEqualTo(before);
  }

  @Test
  void optionsAHelperCannotServe() throws Exception {
    Path helper = helper("sign.sh", rsautl(key(KEY_4096)));
    Path out = dir.resolve("v.img");
    ToolRun both =
        vbmeta(
            out,
            "SHA256_RSA4096",
            "--key",
            publicKey,
            "--signing_helper",
            helper,
            "--signing_helper_with_files",
            helper);
    assertThat(both.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(both.stderr()).contains("--signing_helper and --signing_helper_with_files");
    ToolRun mlDsa = vbmeta(out, "MLDSA65", "--key", publicKey, "--signing_helper", helper);
    assertThat(mlDsa.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(mlDsa.stderr()).contains("(expected: an RSA algorithm");
    ToolRun small = vbmeta(out, "SHA256_RSA2048", "--key", publicKey, "--signing_helper", helper);
    assertThat(small.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(small.stderr())
        .isEqualTo(
            "jverity: --key "
                + publicKey
                + ": a 4096-bit RSA key (expected: 2048 bits for SHA256_RSA2048)\n");
    ToolRun noKey = vbmeta(out, "SHA256_RSA2048", "--signing_helper", helper);
    assertThat(noKey.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(noKey.stderr()).contains("--key: missing (expected: the PEM public key");
    assertThat(out).doesNotExist();
    ToolRun fits = vbmeta(out, "SHA256_RSA4096", "--key", publicKey, "--signing_helper", helper);
    assertThat(fits.exitCode()).as(fits.stderr()).isZero();
  }

  private static ToolRun vbmeta(Path out, String algorithm, Object... more) {
    return avb(
        "make_vbmeta_image",
        concat(new Object[] {"--output", out, "--algorithm", algorithm}, more));
  }

  private static Object[] concat(Object[] a, Object... b) {
    Object[] all = new Object[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
