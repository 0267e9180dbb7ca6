package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.KEY_2048;
import static org.jverity.cli.avb.AvbCommandKit.KEY_4096;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.key;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;
import static org.jverity.cli.avb.AvbCommandKit.sha256;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Veritysetup;

/**
 * {@code jverity avb add_hashtree_footer} against AOSP's known answers (AVB.md 8), veritysetup
 * (tree and FEC) and openssl (the vbmeta signature), and its failures (the image left as it was).
 */
class AddHashtreeFooterCommandTest {
  @TempDir Path dir;

  /** AOSP's vector: 1,052,672-byte pattern in 1.5 MiB, sha1, salt d00df00d, FEC 2, RSA2048. */
  private Path aospImage() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 1_052_672);
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        1_572_864,
        "--partition_name",
        "foobar",
        "--salt",
        "d00df00d",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048),
        "--internal_release_string",
        "");
    return img;
  }

  @Test
  void aospWholeImageVector() throws Exception {
    Path img = aospImage();
    assertThat(sha256(img))
        .isEqualTo("30e16aef4a3353c5b96542c43c40bbbc99b66c80338ec061dd00cc4e81665828");
    byte[] b = read(img);
    assertThat(sha256(Arrays.copyOfRange(b, 1_069_056, 1_069_056 + 16384)))
        .isEqualTo("b1cd359fa2fb5196008efb0043b520de28630c5e560aad3e07528355c7ae5d60");
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains("Root Digest:           e811611467dcd6e8dc4324e45f706c2bdd51db67")
        .contains("VBMeta offset:            1085440")
        .contains("VBMeta size:              1344 bytes");
  }

  @Test
  void aRerunIsByteIdenticalAndEraseFooterGivesBackTheInput() throws Exception {
    Path img = aospImage();
    byte[] first = read(img);
    aospImage(); // pattern() rewrites the input: run again on a fresh one, then on the footer'd one
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition-size", // the dashed spelling too
        1_572_864,
        "--partition_name",
        "foobar",
        "--salt",
        "d00df00d",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048),
        "--internal-release-string",
        "");
    assertThat(read(img)).isEqualTo(first);
    ok("erase_footer", "--image", img);
    assertThat(read(img)).isEqualTo(read(pattern(dir.resolve("orig"), 1_052_672)));
  }

  @Test
  void treeAndFecVerifyWithVeritysetupAndTheSignatureWithOpenssl() throws Exception {
    Path img = aospImage();
    Veritysetup.tool()
        .check(
            "verify",
            "--no-superblock",
            "--hash=sha1",
            "--salt=d00df00d",
            "--data-blocks=257",
            "--hash-offset=1052672",
            "--fec-device=" + img,
            "--fec-offset=1069056",
            "--fec-roots=2",
            img.toString(),
            img.toString(),
            "e811611467dcd6e8dc4324e45f706c2bdd51db67");
    // header ‖ aux signed, PKCS#1 v1.5 over SHA-256: openssl checks it with the key's public half
    byte[] b = read(img);
    int vbmeta = 1_085_440;
    ByteBuffer h = ByteBuffer.wrap(b, vbmeta, 256);
    long auth = h.getLong(vbmeta + 12);
    long aux = h.getLong(vbmeta + 20);
    long sigOffset = h.getLong(vbmeta + 48);
    long sigSize = h.getLong(vbmeta + 56);
    byte[] signed = new byte[(int) (256 + aux)];
    System.arraycopy(b, vbmeta, signed, 0, 256);
    System.arraycopy(b, (int) (vbmeta + 256 + auth), signed, 256, (int) aux);
    Files.write(dir.resolve("signed"), signed);
    Files.write(
        dir.resolve("sig"),
        Arrays.copyOfRange(
            b, (int) (vbmeta + 256 + sigOffset), (int) (vbmeta + 256 + sigOffset + sigSize)));
    Openssl.in(dir).check("rsa", "-in", key(KEY_2048), "-pubout", "-out", "pub.pem");
    Openssl.in(dir).check("dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "signed");
  }

  @Test
  void oneBlockImageWithoutPartitionSize() throws Exception {
    Path img = pattern(dir.resolve("one.img"), 4096);
    ok("add_hashtree_footer", "--image", img, "--salt", "d00df00d");
    assertThat(Files.size(img)).isEqualTo(20480);
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains("Root Digest:           4bd1e1f0aa1c2c793bb9f3e52de6ae7393889e61")
        .contains("Tree Size:             0 bytes")
        .contains("FEC size:              8192 bytes")
        .contains("VBMeta offset:            12288");
  }

  @Test
  void calcMaxImageSizeAsAvbtool() {
    assertThat(
            ok("add_hashtree_footer", "--partition_size", 2 * 1024 * 1024, "--calc_max_image_size")
                .stdout())
        .isEqualTo("1978368\n"); // libfec's header counted: see AvbTreeGeometryTest
    assertThat(
            ok(
                    "add_hashtree_footer",
                    "--partition_size",
                    2 * 1024 * 1024,
                    "--do_not_generate_fec",
                    "--calc_max_image_size")
                .stdout())
        .isEqualTo("2007040\n");
    assertThat(
            ok("add_hashtree_footer", "--partition_size", 10 * 1024 * 1024, "--calc_max_image_size")
                .stdout())
        .isEqualTo("10235904\n"); // AOSP's figure
    assertThat(
            ok(
                    "add_hashtree_footer",
                    "--partition_size",
                    10 * 1024 * 1024,
                    "--no_hashtree",
                    "--calc_max_image_size")
                .stdout())
        .isEqualTo("10416128\n");
  }

  @Test
  void noHashtreeVector() throws Exception {
    Path img = pattern(dir.resolve("nh.img"), 10_416_128);
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        10 * 1024 * 1024,
        "--salt",
        "deadbeef",
        "--no_hashtree");
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains("Root Digest:           4215bd42bcc99636f42956ce3d2c7884d6a8093b")
        .contains("Tree Size:             0 bytes")
        .contains("FEC num roots:         2")
        .contains("FEC offset:            10416128")
        .contains("FEC size:              0 bytes");
  }

  @Test
  void requiredLibavbVersionBumps() {
    assertThat(ok("add_hashtree_footer", "--print_required_libavb_version").stdout())
        .isEqualTo("1.0\n");
    assertThat(
            ok("add_hashtree_footer", "--check_at_most_once", "--print_required_libavb_version")
                .stdout())
        .isEqualTo("1.1\n");
    assertThat(
            ok(
                    "add_hashtree_footer",
                    "--rollback_index_location",
                    1,
                    "--print_required_libavb_version")
                .stdout())
        .isEqualTo("1.2\n");
  }

  @ParameterizedTest
  @ValueSource(ints = {512, 1024})
  void smallBlocksVerifyWithVeritysetup(int bs) throws Exception {
    Path img = pattern(dir.resolve("small.img"), 1_000_000); // odd size: padded to 4096
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        2 * 1024 * 1024,
        "--block_size",
        bs,
        "--hash_algorithm",
        "sha256",
        "--salt",
        "00",
        "--fec_num_roots",
        4);
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info).contains("Original image size:      1000000 bytes");
    long imageSize = 1_003_520;
    String root = field(info, "Root Digest:");
    String fecOffset = field(info, "FEC offset:");
    Veritysetup.tool()
        .check(
            "verify",
            "--no-superblock",
            "--hash=sha256",
            "--salt=00",
            "--data-block-size=" + bs,
            "--hash-block-size=" + bs,
            "--data-blocks=" + imageSize / bs,
            "--hash-offset=" + imageSize,
            "--fec-device=" + img,
            "--fec-offset=" + fecOffset,
            "--fec-roots=4",
            img.toString(),
            img.toString(),
            root);
  }

  @Test
  void emptyImage() throws Exception {
    Path img = dir.resolve("empty.img");
    Files.write(img, new byte[0]);
    ok("add_hashtree_footer", "--image", img, "--hash_algorithm", "sha256", "--salt", "");
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains("Image Size:            0 bytes")
        // SHA-256 of the empty salt and no data: the root avbroot gives an empty image
        .contains(
            "Root Digest:           e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    ok("erase_footer", "--image", img);
    assertThat(Files.size(img)).isZero();
  }

  @Test
  void aPartitionTooSmallLeavesTheImageAsItWas() throws Exception {
    Path img = aospImage();
    byte[] before = read(img);
    ToolRun r =
        avb("add_hashtree_footer", "--image", img, "--partition_size", 1_064_960, "--salt", "00");
    assertThat(r.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(r.stderr()).contains("exceeds the maximum image size");
    assertThat(read(img)).isEqualTo(before);
  }

  /**
   * --block_size has the one block-size rule of the core and of the AVB checks (avbtool itself has
   * no upper bound, but neither veritysetup nor the kernel opens blocks over 512 KiB).
   */
  @ParameterizedTest(name = "--block_size {0}")
  @ValueSource(ints = {256, 3000, 1_048_576})
  void aBlockSizeVeritysetupCannotOpenLeavesTheImageAsItWas(int bs) throws Exception {
    Path img = aospImage();
    byte[] before = read(img);
    ToolRun r =
        avb("add_hashtree_footer", "--image", img, "--partition_size", 0, "--block_size", bs);
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines())
        .containsExactly(
            "jverity: --block_size: " + bs + " (expected: a power of two from 512 to 524288)");
    assertThat(read(img)).isEqualTo(before);
  }

  @Test
  void aKeyOfTheWrongSizeLeavesTheImageAsItWas() throws Exception {
    Path img = aospImage();
    byte[] before = read(img);
    ToolRun r =
        avb(
            "add_hashtree_footer",
            "--image",
            img,
            "--partition_size",
            1_572_864,
            "--algorithm",
            "SHA256_RSA2048",
            "--key",
            key(KEY_4096));
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(r.stderr()).contains("4096").contains("2048");
    assertThat(read(img)).isEqualTo(before);
  }

  @Test
  void aMissingImageIsOneLine() {
    ToolRun r =
        avb("add_hashtree_footer", "--image", dir.resolve("nope.img"), "--partition_size", 0);
    assertThat(r.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(r.stderr()).contains("nope.img");
  }

  @Test
  void anOutputVbmetaImageNeverOverwritesTheKey() throws Exception {
    Path img = pattern(dir.resolve("x.img"), 8192);
    Path k = dir.resolve("k.pem");
    Files.copy(Path.of(key(KEY_2048)), k);
    byte[] before = read(img);
    ToolRun r =
        avb(
            "add_hashtree_footer",
            "--image",
            img,
            "--algorithm",
            "SHA256_RSA2048",
            "--key",
            k,
            "--output_vbmeta_image",
            k);
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(read(img)).isEqualTo(before);
    assertThat(read(k)).isEqualTo(read(Path.of(key(KEY_2048))));
  }

  @Test
  void zeroHashtreeMarksTreeAndFec() throws Exception {
    Path img = aospImage();
    long size = Files.size(img);
    ok("zero_hashtree", "--image", img);
    byte[] b = read(img);
    assertThat(b).hasSize((int) size);
    assertThat(new String(b, 1_052_672, 8, "US-ASCII")).isEqualTo("ZeRoHaSH");
    assertThat(new String(b, 1_069_056, 8, "US-ASCII")).isEqualTo("ZeRoHaSH");
    assertThat(ok("info_image", "--image", img).stdout())
        .contains("Root Digest:           e811611467dcd6e8dc4324e45f706c2bdd51db67");
  }

  private static String field(String info, String label) {
    return info.lines()
        .filter(l -> l.strip().startsWith(label))
        .findFirst()
        .orElseThrow()
        .strip()
        .substring(label.length())
        .strip()
        .replace(" bytes", "");
  }
}
