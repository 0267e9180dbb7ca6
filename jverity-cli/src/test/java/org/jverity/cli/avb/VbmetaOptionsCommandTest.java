package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.KEY_2048;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.key;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;

/** The options every vbmeta-producing subcommand shares, as info_image shows what they did. */
class VbmetaOptionsCommandTest {
  @TempDir Path dir;

  @Test
  void headerOptions() throws Exception {
    Path metadata = Files.write(dir.resolve("pkmd.bin"), new byte[] {1, 2, 3});
    Path v = dir.resolve("vbmeta.img");
    ok(
        "make_vbmeta_image",
        "--output",
        v,
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048),
        "--rollback_index",
        "0x10",
        "--rollback_index_location",
        2,
        "--flags",
        2,
        "--set_hashtree_disabled_flag",
        "--append_to_release_string",
        "jverity",
        "--public_key_metadata",
        metadata);
    String info = ok("info_image", "--image", v).stdout();
    assertThat(info)
        .contains("Minimum libavb version:   1.2") // a rollback index location
        .contains("Rollback Index:           16")
        .contains("Flags:                    3")
        .contains("Rollback Index Location:  2")
        .contains("Release String:           'avbtool 1.3.0 jverity'");
    byte[] b = read(v);
    // the metadata follows the key in the aux block: 256 + auth 320 + key offset 0 + 520
    assertThat(Arrays.copyOfRange(b, 256 + 320 + 520, 256 + 320 + 523)).containsExactly(1, 2, 3);
  }

  @Test
  void descriptorOptions() throws Exception {
    Path system = pattern(dir.resolve("system.img"), 1 << 20);
    ok("add_hashtree_footer", "--image", system, "--partition_name", "system", "--salt", "00");
    Path value = Files.write(dir.resolve("value.bin"), new byte[] {0, (byte) 0xff, 'x'});
    Path keyBlob = dir.resolve("k.bin");
    ok("extract_public_key", "--key", key(KEY_2048), "--output", keyBlob);
    Path v = dir.resolve("vbmeta.img");
    ok(
        "make_vbmeta_image",
        "--output",
        v,
        "--prop_from_file",
        "bin:" + value,
        "--prop",
        "text:hello",
        "--setup_rootfs_from_kernel",
        system,
        "--chain_partition_do_not_use_ab",
        "vendor:3:" + keyBlob);
    String info = ok("info_image", "--image", v).stdout();
    assertThat(info)
        .contains("Minimum libavb version:   1.3")
        .contains("    Prop: text -> 'hello'")
        .contains("    Prop: bin -> '\\x00\\xffx'")
        .contains("      Rollback Index Location: 3")
        .contains("      Partition Name:          vendor")
        .contains("      Flags:                   1")
        .contains("root=PARTUUID=$(ANDROID_SYSTEM_PARTUUID)");
    assertThat(info.indexOf("Chain Partition")).isLessThan(info.indexOf("Prop: text"));
    assertThat(info.indexOf("Prop: text")).isLessThan(info.indexOf("Prop: bin"));
    assertThat(info.indexOf("Prop: bin")).isLessThan(info.indexOf("Kernel Cmdline"));
  }

  @Test
  void chainLocationsMustBeDistinct() throws Exception {
    Path keyBlob = dir.resolve("k.bin");
    ok("extract_public_key", "--key", key(KEY_2048), "--output", keyBlob);
    ToolRun r =
        avb(
            "make_vbmeta_image",
            "--output",
            dir.resolve("v.img"),
            "--chain_partition",
            "a:1:" + keyBlob,
            "--chain_partition",
            "b:1:" + keyBlob);
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).contains("already in use");
  }

  @Test
  void appendVbmetaImage() throws Exception {
    Path vbmeta = dir.resolve("vbmeta.bin");
    ok("make_vbmeta_image", "--output", vbmeta, "--prop", "a:b");
    Path img = pattern(dir.resolve("img"), 10_000);
    ok("append_vbmeta_image", "--image", img, "--vbmeta_image", vbmeta, "--partition_size", 65536);
    assertThat(Files.size(img)).isEqualTo(65536);
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains("Original image size:      10000 bytes")
        .contains("VBMeta offset:            12288")
        .contains("    Prop: a -> 'b'");
    ok("erase_footer", "--image", img);
    assertThat(read(img)).isEqualTo(read(pattern(dir.resolve("orig"), 10_000)));
  }

  @Test
  void extractVbmetaImageAndResizeImage() throws Exception {
    Path img = pattern(dir.resolve("img"), 10_000);
    ok("add_hash_footer", "--image", img, "--partition_size", 131072, "--salt", "00");
    Path vbmeta = dir.resolve("vbmeta.img");
    ok("extract_vbmeta_image", "--image", img, "--output", vbmeta, "--padding_size", 4096);
    assertThat(Files.size(vbmeta)).isEqualTo(4096);
    byte[] blob = Arrays.copyOfRange(read(img), 12288, 12288 + 512);
    assertThat(Arrays.copyOf(read(vbmeta), 512)).isEqualTo(blob);
    String info = ok("info_image", "--image", img).stdout();
    ok("resize_image", "--image", img, "--partition_size", 262144);
    assertThat(Files.size(img)).isEqualTo(262144);
    assertThat(ok("info_image", "--image", img).stdout())
        .isEqualTo(
            info.replace("Image size:               131072", "Image size:               262144"));
    ToolRun small = avb("resize_image", "--image", img, "--partition_size", 12288);
    assertThat(small.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(Files.size(img)).isEqualTo(262144);
  }

  /** ML-DSA-65 (Android 17): a PKCS#8 key the JDK made, signing a vbmeta our verifier accepts. */
  @Test
  void mlDsaSignedVbmeta() throws Exception {
    KeyPair pair = KeyPairGenerator.getInstance("ML-DSA-65").generateKeyPair();
    Path pem =
        Files.writeString(
            dir.resolve("mldsa65.pem"),
            "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(pair.getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    Path v = dir.resolve("vbmeta.img");
    ok("make_vbmeta_image", "--output", v, "--algorithm", "MLDSA65", "--key", pem);
    assertThat(ok("info_image", "--image", v).stdout())
        .contains("Algorithm:                MLDSA65");
    assertThat(ok("verify_image", "--image", v).stdout()).contains("MLDSA65 vbmeta struct");
    ToolRun wrong =
        avb(
            "make_vbmeta_image",
            "--output",
            dir.resolve("w.img"),
            "--algorithm",
            "MLDSA87",
            "--key",
            pem);
    assertThat(wrong.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(wrong.stderrLines()).hasSize(1);
  }
}
