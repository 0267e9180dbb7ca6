package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.KEY_2048;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.key;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Tool;

/**
 * Android sparse images, as AOSP's img2simg writes them: refused in one line naming simg2img, the
 * file left as it was, by every avb subcommand and by {@code --avb-key}; hashing one as raw would
 * give an image no device boots.
 */
class SparseImageCommandTest {
  @TempDir Path dir;

  @Test
  void aSparseImageIsRefusedEverywhereAndItsRawFormWorks() throws Exception {
    Path raw = pattern(dir.resolve("system.raw"), 1 << 20);
    ok(
        "add_hashtree_footer",
        "--image",
        raw,
        "--partition_name",
        "system",
        "--partition_size",
        2 << 20,
        "--salt",
        "00",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key(KEY_2048));
    Path sparse = dir.resolve("system.img");
    Tool.of("img2simg").run(raw.toString(), sparse.toString()).ok();
    byte[] before = read(sparse);
    String refusal =
        "jverity: "
            + sparse
            + ": an Android sparse image (expected: a raw image; simg2img "
            + sparse
            + " RAW converts it)\n";
    Object[][] commands = {
      {"add_hashtree_footer", "--partition_name", "system"},
      {"add_hash_footer", "--partition_name", "system", "--partition_size", 4 << 20},
      {"erase_footer"},
      {"zero_hashtree"},
      {"resize_image", "--partition_size", 4 << 20},
      {"info_image"},
      {"verify_image"},
      {"extract_vbmeta_image", "--output", dir.resolve("vbmeta.img")},
    };
    for (Object[] c : commands) {
      Object[] args = new Object[c.length + 1];
      args[0] = "--image";
      args[1] = sparse;
      System.arraycopy(c, 1, args, 2, c.length - 1);
      String subcommand = (String) c[0];
      ToolRun r = avb(subcommand, args);
      assertThat(r.exitCode())
          .as("%s: %s", subcommand, r.stderr())
          .isEqualTo(ExitCode.INVALID_PARAMETER);
      assertThat(r.stderr()).as(subcommand).isEqualTo(refusal);
      assertThat(read(sparse)).as(subcommand).isEqualTo(before);
    }
    assertThat(dir.resolve("vbmeta.img")).doesNotExist();
    ToolRun read =
        Jverity.run(
            "verify", sparse.toString(), "--avb-key", key(KEY_2048), "--detailed-exit-codes");
    assertThat(read.exitCode()).as(read.stderr()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(read.stderr()).isEqualTo(refusal);

    // a vbmeta whose hashtree descriptor points at the sparse file beside it
    Path vbmeta = dir.resolve("vbmeta.raw");
    ok("make_vbmeta_image", "--output", vbmeta, "--include_descriptors_from_image", raw);
    ToolRun chained =
        avb(
            "verify_image",
            "--image",
            vbmeta,
            "--accept_unsigned",
            "--partition",
            "system:" + sparse);
    assertThat(chained.exitCode()).as(chained.stderr()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(chained.stderr()).isEqualTo(refusal);

    Path back = dir.resolve("system.back");
    Tool.of("simg2img").run(sparse.toString(), back.toString()).ok();
    assertThat(read(back)).isEqualTo(read(raw));
    assertThat(ok("verify_image", "--image", back).stdout()).contains("Successfully verified");
  }

  @Test
  void aRawImageThatOnlyStartsWithTheMagicIsRaw() throws Exception {
    Path img = pattern(dir.resolve("odd.img"), 1 << 16);
    byte[] b = read(img);
    b[0] = 0x3a;
    b[1] = (byte) 0xff;
    b[2] = 0x26;
    b[3] = (byte) 0xed; // the magic, then no sparse header (version 0x0504)
    Files.write(img, b);
    ok("add_hash_footer", "--image", img, "--partition_name", "boot", "--partition_size", 1 << 20);
    assertThat(ok("verify_image", "--image", img, "--accept_unsigned").stdout())
        .contains("Successfully verified");
  }
}
