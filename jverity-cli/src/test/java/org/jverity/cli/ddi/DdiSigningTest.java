package org.jverity.cli.ddi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;
import org.jverity.text.Json;

/**
 * {@code ddi build} signing with a key held elsewhere: a signing helper speaking avbtool's protocol
 * (here openssl raising the block to the private exponent, as avbtool's own helpers do), and
 * systemd-repart's two steps ({@code --print-digest}, then {@code --join-signature ROOTHASH:SIG}
 * with a PKCS#7 openssl made). RSA PKCS#1 v1.5 is deterministic and the PKCS#7 has no signed
 * attributes, so each gives the image {@code --key} gives, byte for byte; each failure is one line,
 * its exit code, and no image.
 */
class DdiSigningTest {
  private static final String SEED = "0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10";

  @TempDir Path dir;
  Path fs;
  Path key;
  Path cert;

  @BeforeEach
  void inputs() throws IOException {
    Path src = Files.createDirectories(dir.resolve("src"));
    byte[] big = new byte[300_000];
    new SplittableRandom(5).nextBytes(big);
    Files.write(src.resolve("app.bin"), big);
    fs = dir.resolve("rootfs.ext4");
    Tool.of("mkfs.ext4").run("-q", "-b", "4096", "-d", src.toString(), fs.toString(), "8M").ok();
    Openssl.rsa(dir, "signer", 2048);
    key = dir.resolve("signer.key");
    cert = dir.resolve("signer.crt");
  }

  private ToolRun build(Path out, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "ddi",
                "build",
                out.toString(),
                "--root",
                fs.toString(),
                "--seed",
                SEED,
                "--arch",
                "x86-64"));
    args.addAll(List.of(more));
    return Jverity.run(args);
  }

  private Path withKey() {
    Path out = dir.resolve("key.raw");
    ToolRun r = build(out, "--key", key.toString(), "--cert", cert.toString());
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return out;
  }

  /** A helper script: its arguments logged to {@code args.txt}, then {@code body}. */
  private Path helper(String name, String body) throws IOException {
    Path script = dir.resolve(name);
    Files.writeString(
        script, "#!/bin/sh\necho \"$@\" > " + dir.resolve("args.txt") + "\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  /**
   * The private operation on the block as it comes, as avbtool's own helpers do it ({@code pkeyutl
   * -sign} refuses a block as long as the modulus: it takes its input for a digest).
   */
  private static String rawRsa(Path privateKey) {
    return "exec openssl rsautl -sign -raw -inkey " + privateKey + " 2>/dev/null";
  }

  @Test
  void aHelperSignsTheImageTheKeyDoes() throws Exception {
    Path expected = withKey();
    Path out = dir.resolve("helper.raw");
    ToolRun r =
        build(
            out,
            "--signing-helper",
            helper("sign.sh", rawRsa(key)).toString(),
            "--cert",
            cert.toString());
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(Files.readString(dir.resolve("args.txt")).strip())
        .isEqualTo("SHA256_RSA2048 " + cert);
    assertThat(Files.mismatch(out, expected)).isEqualTo(-1);

    // openssl takes the PKCS#7 as a signature of the root hash by the certificate's key
    Map<?, ?> sig = signaturePartition(out);
    Path der = dir.resolve("sig.der");
    Files.write(der, Base64.getDecoder().decode((String) sig.get("signature")));
    Path text = dir.resolve("roothash.txt");
    Files.writeString(text, (String) sig.get("rootHash"));
    Openssl.tool()
        .check(
            "smime",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            der.toString(),
            "-content",
            text.toString(),
            "-CAfile",
            cert.toString(),
            "-purpose",
            "any",
            "-out",
            "/dev/null");

    // avbtool's other spelling, and its helper that signs a file in place
    Path files = dir.resolve("files.raw");
    Path withFiles =
        helper(
            "sign-file.sh",
            "openssl rsautl -sign -raw -inkey "
                + key
                + " -in \"$3\" -out \"$3.sig\" 2>/dev/null && mv \"$3.sig\" \"$3\"");
    ToolRun f =
        build(
            files, "--signing_helper_with_files", withFiles.toString(), "--cert", cert.toString());
    assertThat(f.exitCode()).as(f.stderr()).isZero();
    assertThat(Files.mismatch(files, expected)).isEqualTo(-1);
  }

  @Test
  void aFailingHelperIsOneLineAndNoImage() throws Exception {
    Openssl.rsa(dir, "stranger", 2048);
    String strangers = rawRsa(dir.resolve("stranger.key"));
    for (String body : List.of("echo no token >&2; exit 1", "echo garbage", strangers)) {
      Path out = dir.resolve("failed.raw");
      ToolRun r =
          build(
              out,
              "--signing-helper",
              helper("bad.sh", body).toString(),
              "--cert",
              cert.toString());
      assertThat(r.exitCode()).as(body).isEqualTo(14);
      assertThat(r.stderrLines())
          .as(body)
          .singleElement()
          .asString()
          .startsWith("jverity: --signing_helper ");
      assertThat(out).as(body).doesNotExist();
      assertThat(Files.list(dir).filter(p -> p.getFileName().toString().contains("failed.raw")))
          .as("no temporary file left")
          .isEmpty();
    }
    ToolRun exit1 =
        build(
            dir.resolve("x.raw"),
            "--signing-helper",
            helper("bad.sh", "echo no token >&2; exit 1").toString(),
            "--cert",
            cert.toString());
    assertThat(exit1.stderr()).contains("exited with status 1: no token");
  }

  @Test
  void aHelperForAnEcKeyIsRefused() {
    Openssl.ec(dir, "ec");
    Path out = dir.resolve("ec.raw");
    ToolRun r =
        build(out, "--signing-helper", "/bin/false", "--cert", dir.resolve("ec.crt").toString());
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .contains("holds an EC key (expected: RSA of 2048, 4096 or 8192 bits");
    assertThat(out).doesNotExist();
  }

  /** openssl's detached PKCS#7 of {@code text}, the certificate in it, no signed attributes. */
  private Path opensslSign(String text, String name) throws IOException {
    Path content = dir.resolve(name + ".txt");
    Files.writeString(content, text);
    Path sig = dir.resolve(name + ".p7s");
    Openssl.tool()
        .check(
            "smime",
            "-sign",
            "-signer",
            cert.toString(),
            "-inkey",
            key.toString(),
            "-noattr",
            "-binary",
            "-in",
            content.toString(),
            "-outform",
            "DER",
            "-out",
            sig.toString());
    return sig;
  }

  @Test
  void printDigestThenJoinSignatureMakesTheImageTheKeyDoes() throws Exception {
    Path expected = withKey();
    Path unsigned = dir.resolve("unsigned.raw");
    ToolRun step1 = build(unsigned, "--print-digest");
    assertThat(step1.exitCode()).as(step1.stderr()).isZero();
    assertThat(step1.stdoutLines()).singleElement().asString().matches("[0-9a-f]{64}");
    String root = step1.stdoutLines().getFirst();
    assertThat(Tool.of("sfdisk").run("--json", unsigned.toString()).ok().out())
        .doesNotContain("41092B05-9FC8-4523-994F-2DEF0408B176"); // no signature partition yet
    ToolRun json = build(dir.resolve("again.raw"), "--print-digest", "--json");
    assertThat(((Map<?, ?>) Json.parse(json.stdout())).get("digest")).isEqualTo(root);

    Path sig = opensslSign(root, "roothash");
    Path joined = dir.resolve("joined.raw");
    ToolRun step2 = build(joined, "--join-signature", root + ":" + sig, "--cert", cert.toString());
    assertThat(step2.exitCode()).as(step2.stderr()).isZero();
    assertThat(Files.mismatch(joined, expected)).isEqualTo(-1);

    // repart's other form: the DER's base64 on the command line
    Path inline = dir.resolve("inline.raw");
    String b64 = Base64.getEncoder().encodeToString(Files.readAllBytes(sig));
    ToolRun step2b =
        build(inline, "--join-signature", root + ":base64:" + b64, "--cert", cert.toString());
    assertThat(step2b.exitCode()).as(step2b.stderr()).isZero();
    assertThat(Files.mismatch(inline, expected)).isEqualTo(-1);

    ToolRun verify =
        Jverity.run(
            "ddi",
            "verify",
            joined.toString(),
            "--cert-dir",
            certDir().toString(),
            "--arch",
            "x86-64");
    assertThat(verify.exitCode()).as(verify.stderr()).isZero();
  }

  private Path certDir() throws IOException {
    Path d = dir.resolve("verity.d");
    if (!Files.exists(d)) {
      Files.createDirectories(d);
      Files.copy(cert, d.resolve("signer.crt"));
    }
    return d;
  }

  @Test
  void aJoinedSignatureOfAnotherRootHashIsRefused() throws Exception {
    Path out = dir.resolve("joined.raw");
    Files.writeString(out, "an older image");
    String other = "ab".repeat(32);
    Path sig = opensslSign(other, "other");

    // a signature that is not of the root hash named: refused before anything is built
    String root = build(dir.resolve("u.raw"), "--print-digest").stdoutLines().getFirst();
    ToolRun mismatch = build(out, "--join-signature", root + ":" + sig, "--cert", cert.toString());
    assertThat(mismatch.exitCode()).isEqualTo(14);
    assertThat(mismatch.stderrLines()).singleElement().asString().contains("does not verify");
    assertThat(Files.readString(out)).isEqualTo("an older image");

    // a good signature of another root hash: refused once the image's is known
    ToolRun another = build(out, "--join-signature", other + ":" + sig, "--cert", cert.toString());
    assertThat(another.exitCode()).isEqualTo(14);
    assertThat(another.stderrLines())
        .containsExactly(
            "jverity: --join-signature: signs root hash "
                + other
                + ", not the image's "
                + root
                + " (expected: the input, --seed and options of the --print-digest build)");
    assertThat(Files.readString(out)).isEqualTo("an older image");

    ToolRun noCert = build(out, "--join-signature", root + ":" + sig);
    assertThat(noCert.exitCode()).isEqualTo(2);
    assertThat(noCert.stderrLines()).singleElement().asString().contains("needs --cert");
    ToolRun both = build(out, "--print-digest", "--key", key.toString(), "--cert", cert.toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.stderrLines())
        .containsExactly("jverity: --key and --print-digest: give one (each is a way to sign)");
    ToolRun badSyntax = build(out, "--join-signature", "abc:" + sig, "--cert", cert.toString());
    assertThat(badSyntax.exitCode()).isEqualTo(3);
    assertThat(badSyntax.stderrLines()).hasSize(1);
  }

  @Test
  void extraPartitionsFollowTheVeritySetAsTheyCame() throws Exception {
    Path esp = dir.resolve("esp.bin");
    byte[] espBytes = new byte[100_000]; // not a multiple of 4096: the partition is rounded up
    new SplittableRandom(7).nextBytes(espBytes);
    Files.write(esp, espBytes);
    Path home = dir.resolve("home.bin");
    Files.write(home, new byte[8192]);
    Path out = dir.resolve("extras.raw");
    ToolRun r =
        build(
            out,
            "--key",
            key.toString(),
            "--cert",
            cert.toString(),
            "--extra",
            "esp:" + esp,
            "--extra",
            "home:" + home,
            "--extra",
            "933ac7e1-2eb4-4f13-b844-0e14e2aef915:" + home);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(Tool.of("sgdisk").run("-v", out.toString()).ok().out())
        .contains("No problems found.");
    String json = Tool.of("sfdisk").run("--json", out.toString()).ok().out();
    List<?> parts =
        (List<?>)
            ((Map<?, ?>) ((Map<?, ?>) Json.parse(json)).get("partitiontable")).get("partitions");
    assertThat(parts).hasSize(6);
    Map<?, ?> e = (Map<?, ?>) parts.get(3);
    assertThat(e.get("type")).isEqualTo("C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
    assertThat(e.get("name")).isEqualTo("esp");
    assertThat(((Number) e.get("size")).longValue() * 512).isEqualTo(102_400);
    assertThat(((Number) e.get("start")).longValue() * 512 % 4096).isZero();
    Map<?, ?> h1 = (Map<?, ?>) parts.get(4);
    Map<?, ?> h2 = (Map<?, ?>) parts.get(5);
    assertThat(h1.get("type")).isEqualTo("933AC7E1-2EB4-4F13-B844-0E14E2AEF915");
    assertThat(List.of(h1.get("name"), h2.get("name"))).containsExactly("home", "home-2");
    assertThat(h1.get("uuid")).isNotEqualTo(h2.get("uuid"));
    assertThat(h1.containsKey("attrs")).isFalse();
    long start = ((Number) e.get("start")).longValue() * 512;
    byte[] copied = new byte[espBytes.length];
    try (FileChannel ch = FileChannel.open(out)) {
      ch.read(ByteBuffer.wrap(copied), start);
    }
    assertThat(copied).isEqualTo(espBytes);

    ToolRun inspect = Jverity.run("ddi", "inspect", out.toString(), "--arch", "x86-64");
    assertThat(inspect.exitCode()).as(inspect.stderr()).isZero();
    assertThat(inspect.stdout()).contains("Would use for root: partition 1 (root-x86-64)");
    ToolRun verify =
        Jverity.run(
            "ddi",
            "verify",
            out.toString(),
            "--cert-dir",
            certDir().toString(),
            "--arch",
            "x86-64");
    assertThat(verify.exitCode()).as(verify.stderr()).isZero();

    // the same build again: the extras' UUIDs come from the seed too
    Path again = dir.resolve("extras-again.raw");
    build(
        again,
        "--key",
        key.toString(),
        "--cert",
        cert.toString(),
        "--extra",
        "esp:" + esp,
        "--extra",
        "home:" + home,
        "--extra",
        "home:" + home);
    assertThat(Files.mismatch(out, again)).isEqualTo(-1);
  }

  @Test
  void aBadExtraIsOneLineAndNoImage() throws Exception {
    Path out = dir.resolve("bad.raw");
    Path file = dir.resolve("x.bin");
    Files.write(file, new byte[10]);
    for (String[] c :
        List.of(
            new String[] {"nosuch:" + file, "3"},
            new String[] {"root-x86-64:" + file, "3"},
            new String[] {"esp", "3"},
            new String[] {"esp:" + dir.resolve("missing.bin"), "4"})) {
      ToolRun r = build(out, "--extra", c[0]);
      assertThat(r.exitCode()).as(c[0]).isEqualTo(Integer.parseInt(c[1]));
      assertThat(r.stderrLines()).as(c[0]).hasSize(1);
      assertThat(out).doesNotExist();
    }
  }

  /** The signature partition's JSON: the last partition's bytes up to the first NUL. */
  private static Map<?, ?> signaturePartition(Path image) throws IOException {
    String json = Tool.of("sfdisk").run("--json", image.toString()).ok().out();
    List<?> parts =
        (List<?>)
            ((Map<?, ?>) ((Map<?, ?>) Json.parse(json)).get("partitiontable")).get("partitions");
    Map<?, ?> last = (Map<?, ?>) parts.getLast();
    long start = ((Number) last.get("start")).longValue() * 512;
    int size = (int) (((Number) last.get("size")).longValue() * 512);
    ByteBuffer b = ByteBuffer.allocate(size);
    try (FileChannel ch = FileChannel.open(image)) {
      ch.read(b, start);
    }
    String text = new String(b.array(), StandardCharsets.UTF_8);
    return (Map<?, ?>) Json.parse(text.substring(0, text.indexOf('\0')));
  }
}
