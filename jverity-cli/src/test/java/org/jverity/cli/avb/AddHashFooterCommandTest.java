package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.KEY_4096;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.key;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;
import static org.jverity.cli.avb.AvbCommandKit.sha256;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;

/** {@code jverity avb add_hash_footer} against AVB.md 8's vector, and its sizes and failures. */
class AddHashFooterCommandTest {
  @TempDir Path dir;

  static final String SALT = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  private Path boot() throws Exception {
    Path img = pattern(dir.resolve("boot.img"), 65_536);
    ok(
        "add_hash_footer",
        "--image",
        img,
        "--partition_size",
        1024 * 1024,
        "--partition_name",
        "boot",
        "--salt",
        SALT,
        "--algorithm",
        "SHA256_RSA4096",
        "--key",
        key(KEY_4096),
        "--rollback_index",
        5,
        "--prop",
        "com.example.foo:bar");
    return img;
  }

  /** The vector was made with avbtool's default release string, "avbtool 1.3.0". */
  @Test
  void avbMdVector() throws Exception {
    Path img = boot();
    assertThat(sha256(img))
        .isEqualTo("71de947465fd1df50c6afd0366f61e88ebea1845d871b5b6cb9ad07c2de86837");
    String info = ok("info_image", "--image", img).stdout();
    assertThat(info)
        .contains(
            "      Digest:                0b35ced03ae9373818d5442da86e85e6f4fe12b5e95284ef78c033f93a38322f")
        .contains("Authentication Block:     576 bytes")
        .contains("Auxiliary Block:          1344 bytes")
        .contains("VBMeta size:              2176 bytes")
        .contains("    Prop: com.example.foo -> 'bar'")
        .contains("Rollback Index:           5")
        .contains("Release String:           'avbtool 1.3.0'");
  }

  @Test
  void idempotentAndErasable() throws Exception {
    Path img = boot();
    byte[] first = read(img);
    ok(
        "add_hash_footer",
        "--image",
        img,
        "--partition_size",
        1024 * 1024,
        "--partition_name",
        "boot",
        "--salt",
        SALT,
        "--algorithm",
        "SHA256_RSA4096",
        "--key",
        key(KEY_4096),
        "--rollback_index",
        5,
        "--prop",
        "com.example.foo:bar");
    assertThat(read(img)).isEqualTo(first);
    ok("erase_footer", "--image", img);
    assertThat(read(img)).isEqualTo(read(pattern(dir.resolve("orig"), 65_536)));
  }

  @Test
  void calcMaxImageSizeAndDynamicPartitionSize() throws Exception {
    assertThat(
            ok("add_hash_footer", "--partition_size", 2 * 1024 * 1024, "--calc_max_image_size")
                .stdout())
        .isEqualTo("2027520\n");
    assertThat(
            ok("add_hash_footer", "--partition_size", 10 * 1024 * 1024, "--calc_max_image_size")
                .stdout())
        .isEqualTo("10416128\n");
    Path img = pattern(dir.resolve("odd.img"), 100_001);
    ok("add_hash_footer", "--image", img, "--dynamic_partition_size", "--salt", "");
    // round_up(100001 + 69632, 4096)
    assertThat(Files.size(img)).isEqualTo(172_032);
    assertThat(ok("info_image", "--image", img).stdout())
        .contains("Original image size:      100001 bytes")
        .contains("      Image Size:            100001 bytes");
  }

  @Test
  void tooSmallAPartitionLeavesTheImageAsItWas() throws Exception {
    Path img = boot();
    byte[] before = read(img);
    ToolRun r = avb("add_hash_footer", "--image", img, "--partition_size", 131_072);
    assertThat(r.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(read(img)).isEqualTo(before);
    ToolRun tiny = avb("add_hash_footer", "--image", img, "--partition_size", 65_536);
    assertThat(tiny.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(read(img)).isEqualTo(before);
    ToolRun none = avb("add_hash_footer", "--image", img);
    assertThat(none.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(read(img)).isEqualTo(before);
  }

  @Test
  void doNotAppendWritesTheVbmetaOnly() throws Exception {
    Path img = pattern(dir.resolve("b.img"), 65_536);
    Path vbmeta = dir.resolve("vbmeta.bin");
    ok(
        "add_hash_footer",
        "--image",
        img,
        "--partition_size",
        1024 * 1024,
        "--salt",
        SALT,
        "--do_not_append_vbmeta_image",
        "--output_vbmeta_image",
        vbmeta);
    assertThat(Files.size(img)).isEqualTo(65_536);
    assertThat(ok("info_image", "--image", vbmeta).stdout()).contains("Hash descriptor:");
  }
}
