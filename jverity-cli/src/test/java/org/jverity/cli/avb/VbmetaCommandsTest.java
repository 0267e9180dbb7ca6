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

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;

/**
 * A vbmeta image chaining a system partition and including a boot image's descriptors: {@code
 * make_vbmeta_image}'s AVB.md vectors and descriptor order, and the commands that read the chain
 * ({@code print_partition_digests}, {@code calculate_vbmeta_digest}, {@code
 * calculate_kernel_cmdline}, {@code verify_image}), {@code extract_public_key}.
 */
class VbmetaCommandsTest {
  @TempDir Path dir;

  static final String SALT = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  static final String SYSTEM_ROOT =
      "8aa2f74295ea42326038971b0ff0db96b3e2319ac9a5d3fc18fd5e9cd7230a8e";

  Path boot;
  Path system;
  Path systemKey;
  Path vbmeta;

  /** boot (hash, RSA4096), system (hashtree + FEC, RSA2048, chained), vbmeta (RSA4096). */
  @BeforeEach
  void images() throws Exception {
    boot = pattern(dir.resolve("boot.img"), 65_536);
    ok(
        "add_hash_footer",
        "--image",
        boot,
        "--partition_size",
        1024 * 1024,
        "--partition_name",
        "boot",
        "--salt",
        SALT,
        "--algorithm",
        "SHA256_RSA4096",
        "--key",
        key(KEY_4096));
    system = pattern(dir.resolve("system.img"), 1024 * 1024);
    ok(
        "add_hashtree_footer",
        "--image",
        system,
        "--partition_size",
        2 * 1024 * 1024,
        "--partition_name",
        "system",
        "--hash_algorithm",
        "sha256",
        "--salt",
        SALT,
        "--check_at_most_once",
        "--setup_as_rootfs_from_kernel",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048));
    systemKey = dir.resolve("system_key.bin");
    ok("extract_public_key", "--key", key(KEY_2048), "--output", systemKey);
    vbmeta = dir.resolve("vbmeta.img");
    ok(
        "make_vbmeta_image",
        "--output",
        vbmeta,
        "--algorithm",
        "SHA256_RSA4096",
        "--key",
        key(KEY_4096),
        "--include_descriptors_from_image",
        boot,
        "--kernel_cmdline",
        "quiet",
        "--prop",
        "a:b",
        "--chain_partition",
        "system:1:" + systemKey,
        "--padding_size",
        4096);
  }

  @Test
  void emptyVbmetaVectors() throws Exception {
    Path none = dir.resolve("none.img");
    ok("make_vbmeta_image", "--output", none);
    assertThat(sha256(none))
        .isEqualTo("ba4c6a054defd71c4ee86adbe044a72ffc6556cb25070802f5b42f0f560cfc31");
    Path signed = dir.resolve("signed.img");
    ok(
        "make_vbmeta_image",
        "--output",
        signed,
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048));
    assertThat(Files.size(signed)).isEqualTo(1152);
    assertThat(sha256(signed))
        .isEqualTo("a50bfd0f547ac4e19d148dcf7d18ca0207a5cd2cacb898ec04fa1cc672778fe7");
  }

  @Test
  void extractPublicKeyIsTheBlobInfoImageNames() throws Exception {
    byte[] blob = read(systemKey);
    assertThat(blob).hasSize(520);
    assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(blob)))
        .isEqualTo("cdbb77177f731920bbe0a0f94f84d9038ae0617d");
  }

  @Test
  void descriptorsInAvbtoolsOrderAndPadding() throws Exception {
    assertThat(Files.size(vbmeta) % 4096).isZero();
    List<String> headings =
        ok("info_image", "--image", vbmeta)
            .stdout()
            .lines()
            .filter(l -> l.startsWith("    ") && !l.startsWith("      "))
            .toList();
    assertThat(headings)
        .containsExactly(
            "    Chain Partition descriptor:",
            "    Prop: a -> 'b'",
            "    Kernel Cmdline descriptor:",
            "    Hash descriptor:");
  }

  @Test
  void includedImagesRaiseTheRequiredVersionAndNamedOnesComeSorted() throws Exception {
    Path both = dir.resolve("both.img");
    ok(
        "make_vbmeta_image",
        "--output",
        both,
        "--include_descriptors_from_image",
        system,
        "--include_descriptors_from_image",
        boot);
    String info = ok("info_image", "--image", both).stdout();
    assertThat(info).contains("Minimum libavb version:   1.1"); // system's check_at_most_once
    List<String> headings =
        info.lines().filter(l -> l.startsWith("    ") && !l.startsWith("      ")).toList();
    // unnamed ones (system's two cmdlines) in order, then Hash_boot < Hashtree_system
    assertThat(headings)
        .containsExactly(
            "    Kernel Cmdline descriptor:",
            "    Kernel Cmdline descriptor:",
            "    Hash descriptor:",
            "    Hashtree descriptor:");
    assertThat(
            ok(
                    "make_vbmeta_image",
                    "--include_descriptors_from_image",
                    system,
                    "--print_required_libavb_version")
                .stdout())
        .isEqualTo("1.1\n");
  }

  @Test
  void partitionDigestsFollowTheChain() {
    String text = ok("print_partition_digests", "--image", vbmeta).stdout();
    List<String> lines = text.lines().toList();
    assertThat(lines).hasSize(2);
    // the chain descriptor comes first, the included hash descriptor last
    assertThat(lines.get(0)).isEqualTo("system: " + SYSTEM_ROOT);
    assertThat(lines.get(1)).startsWith("boot: ");
    String bootDigest = lines.get(1).substring("boot: ".length());
    assertThat(ok("info_image", "--image", boot).stdout())
        .contains("Digest:                " + bootDigest);
    String json = ok("print_partition_digests", "--image", vbmeta, "--json").stdout();
    assertThat(json)
        .isEqualTo(
            "{\n  \"partitions\": [\n    {\n      \"name\": \"system\",\n      \"digest\": \""
                + SYSTEM_ROOT
                + "\"\n    },\n    {\n      \"name\": \"boot\",\n      \"digest\": \""
                + bootDigest
                + "\"\n    }\n  ]\n}");
  }

  @Test
  void vbmetaDigestHashesTheTopBlobThenTheChainedOne() throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    md.update(blob(vbmeta, 0));
    md.update(blob(system, footerVbmetaOffset(system)));
    assertThat(ok("calculate_vbmeta_digest", "--image", vbmeta).stdout())
        .isEqualTo(HexFormat.of().formatHex(md.digest()) + "\n");
  }

  @Test
  void kernelCmdlineOfTheChainAsAvbMdSays() {
    assertThat(ok("calculate_kernel_cmdline", "--image", vbmeta).stdout())
        .isEqualTo(
            "dm=\"1 vroot none ro 1,0 2048 verity 1 PARTUUID=$(ANDROID_SYSTEM_PARTUUID)"
                + " PARTUUID=$(ANDROID_SYSTEM_PARTUUID) 4096 4096 256 256 sha256 "
                + SYSTEM_ROOT
                + " "
                + SALT
                + " 11 check_at_most_once $(ANDROID_VERITY_MODE) ignore_zero_blocks"
                + " use_fec_from_device PARTUUID=$(ANDROID_SYSTEM_PARTUUID) fec_roots 2"
                + " fec_blocks 259 fec_start 259\" root=/dev/dm-0 quiet"); // the chain comes first
    assertThat(ok("calculate_kernel_cmdline", "--image", vbmeta, "--hashtree_disabled").stdout())
        .isEqualTo("root=PARTUUID=$(ANDROID_SYSTEM_PARTUUID) quiet");
  }

  @Test
  void verifyImageFollowsTheChainAndRefusesAFlippedByte() throws Exception {
    ToolRun good =
        ok("verify_image", "--image", vbmeta, "--key", key(KEY_4096), "--follow_chain_partitions");
    assertThat(good.stdout())
        .startsWith("Verifying image " + vbmeta + " using key at " + key(KEY_4096) + "\n")
        .contains("system: Successfully verified sha256 hashtree");
    try (RandomAccessFile f = new RandomAccessFile(system.toFile(), "rw")) {
      f.seek(5000);
      int b = f.read();
      f.seek(5000);
      f.write(b ^ 1);
    }
    ToolRun bad = avb("verify_image", "--image", vbmeta, "--follow_chain_partitions");
    assertThat(bad.exitCode()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(bad.stderrLines()).hasSize(1);
  }

  @Test
  void aMalformedChainIsOneLineAndNothingIsWritten() {
    Path out = dir.resolve("bad.img");
    ToolRun r = avb("make_vbmeta_image", "--output", out, "--chain_partition", "system:0:x");
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(out).doesNotExist();
  }

  @Test
  void aMalformedExpectedChainIsAnInvalidParameter() {
    ToolRun r =
        avb(
            "verify_image",
            "--image",
            vbmeta,
            "--expected_chain_partition",
            "system:x:" + systemKey);
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines())
        .containsExactly(
            "jverity: --expected_chain_partition system:x:"
                + systemKey
                + ": location x (expected: a number)");
  }

  @Test
  void aKeyThatDoesNotFitTheAlgorithmNamesTheKey() {
    Path out = dir.resolve("bad.img");
    ToolRun r =
        avb(
            "make_vbmeta_image",
            "--output",
            out,
            "--algorithm",
            "SHA256_RSA2048",
            "--key",
            key(KEY_4096));
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines())
        .containsExactly(
            "jverity: --key "
                + key(KEY_4096)
                + ": a 4096-bit RSA key (expected: 2048 bits for SHA256_RSA2048)");
    assertThat(out).doesNotExist();
  }

  private static long footerVbmetaOffset(Path image) throws Exception {
    byte[] b = read(image);
    return ByteBuffer.wrap(b, b.length - 64, 64).getLong(b.length - 64 + 20);
  }

  /** header + auth + aux of the vbmeta at {@code offset}. */
  private static byte[] blob(Path image, long offset) {
    byte[] b = read(image);
    ByteBuffer h = ByteBuffer.wrap(b);
    int at = (int) offset;
    long size = 256 + h.getLong(at + 12) + h.getLong(at + 20);
    return Arrays.copyOfRange(b, at, (int) (at + size));
  }
}
