package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.AvbVectors;

/** {@code jverity avb info_image}: AVB.md 6's text exactly; the dm-verity lines on request. */
class InfoImageCommandTest {
  @TempDir Path dir;

  static final String SALT = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

  static final String AVBTOOL_TEXT = AvbVectors.INFO_IMAGE_SAMPLE;

  private Path avbMdExample() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 1024 * 1024);
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        2097152,
        "--partition_name",
        "system",
        "--salt",
        SALT,
        "--do_not_generate_fec");
    return img;
  }

  @Test
  void avbMdExampleIsAvbtoolsTextExactly() throws Exception {
    Path img = avbMdExample();
    assertThat(ok("info_image", "--image", img).stdout()).isEqualTo(AVBTOOL_TEXT);
    Path text = dir.resolve("info.txt");
    ok("info_image", "--image", img, "--output", text);
    assertThat(Files.readString(text)).isEqualTo(AVBTOOL_TEXT);
  }

  @Test
  void dmVerityAddsTheTableAndTheVeritysetupCommand() throws Exception {
    Path img = avbMdExample();
    String out = ok("info_image", "--image", img, "--dm_verity").stdout();
    assertThat(ok("info_image", "--dm-verity", "--image", img).stdout()).isEqualTo(out);
    assertThat(out).startsWith(AVBTOOL_TEXT);
    assertThat(out.substring(AVBTOOL_TEXT.length()))
        .isEqualTo(
            "dm-verity table (libfs_avb) of system:\n"
                + "  1 "
                + img
                + " "
                + img
                + " 4096 4096 256 256 sha1 2b9c1718a693d97fc700e65dc9dbc654a4e62671 "
                + SALT
                + " 2 restart_on_corruption ignore_zero_blocks\n"
                + "Equivalent veritysetup command:\n"
                + "  veritysetup open --no-superblock --format=1 --hash=sha1 --data-block-size=4096"
                + " --hash-block-size=4096 --data-blocks=256 --hash-offset=1048576 --salt="
                + SALT
                + " "
                + img
                + " system "
                + img
                + " 2b9c1718a693d97fc700e65dc9dbc654a4e62671\n");
    Path text = dir.resolve("info.txt");
    ok("info_image", "--image", img, "--output", text, "--dm_verity");
    assertThat(Files.readString(text)).isEqualTo(out);
  }

  /**
   * A descriptor with a zero block size: avbtool's text prints it as it is (avbtool's info_image
   * does not divide); the dm-verity lines are refused in one line, exit 18, as verify_image refuses
   * the image; nothing is written.
   */
  @Test
  void aZeroBlockSizeIsPrintedAsAvbtoolDoesAndRefusedForTheTable() throws Exception {
    Path img = avbMdExample();
    AvbCommandKit.patchDescriptor(img, 44, 0); // data_block_size
    String text = ok("info_image", "--image", img).stdout();
    assertThat(text).contains("      Data Block Size:       0 bytes\n");
    ToolRun table = avb("info_image", "--image", img, "--dm_verity");
    assertThat(table.exitCode()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(table.stderrLines())
        .containsExactly(
            "jverity: system: hashtree descriptor in "
                + img
                + ": data_block_size 0 (expected: a power of two from 512 to 524288, as"
                + " veritysetup takes)");
    assertThat(table.stdout()).isEmpty();
    Path out = dir.resolve("info.txt");
    assertThat(avb("info_image", "--image", img, "--dm_verity", "--output", out).exitCode())
        .isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(out).doesNotExist();
    ToolRun verify = avb("verify_image", "--image", img, "--accept_unsigned");
    assertThat(verify.exitCode()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(verify.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: system: hashtree descriptor in " + img + ": ");
    AvbCommandKit.patchDescriptor(img, 44, 4096);
    AvbCommandKit.patchDescriptor(img, 48, 0); // hash_block_size
    assertThat(avb("info_image", "--image", img, "--dm_verity").stderrLines())
        .singleElement()
        .asString()
        .contains("hash_block_size 0 (expected");
    ToolRun rootfs =
        avb(
            "make_vbmeta_image",
            "--output",
            dir.resolve("vbmeta.img"),
            "--setup_rootfs_from_kernel",
            img);
    assertThat(rootfs.exitCode()).as(rootfs.stderr()).isEqualTo(ExitCode.AVB_REFUSED);
    assertThat(rootfs.stderrLines())
        .singleElement()
        .asString()
        .contains("system: hashtree descriptor in " + img + " (--setup_rootfs_from_kernel): ")
        .contains("hash_block_size 0 (expected");
    assertThat(dir.resolve("vbmeta.img")).doesNotExist();
  }

  @Test
  void anImageWithoutVbmetaIsRefusedInOneLine() throws Exception {
    Path img = pattern(dir.resolve("plain.img"), 8192);
    ToolRun r = avb("info_image", "--image", img);
    assertThat(r.exitCode()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(r.stderrLines()).hasSize(1);
  }

  @Test
  void helpListsTheSubcommandsAndEachHasItsOwn() {
    ToolRun all = Jverity.run("avb", "--help");
    assertThat(all.exitCode()).isZero();
    for (String name : AvbCommands.NAMES) {
      assertThat(all.stdout()).contains("  " + name + "\n");
    }
    ToolRun one = Jverity.run("avb", "add_hashtree_footer", "--help");
    assertThat(one.stdout())
        .startsWith("Usage: jverity avb add_hashtree_footer")
        .contains("      --partition_size=BYTES")
        .doesNotContain("--partition-size");
    for (String name : AvbCommands.NAMES) {
      String help = Jverity.run("avb", name, "--help").stdout();
      assertThat(help.lines()).allMatch(l -> l.length() <= 80 || !l.contains(" "), "80 columns");
      String last = help.strip().substring(help.strip().lastIndexOf("\n\n") + 2);
      assertThat(last.replace("\n", " "))
          .as(name)
          .startsWith("Exit codes (jverity's;")
          .contains("17 not a valid AVB");
    }
    ToolRun unknown = Jverity.run("avb", "resize_everything");
    assertThat(unknown.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(unknown.stderrLines()).hasSize(1);
    ToolRun missing = Jverity.run("avb");
    assertThat(missing.exitCode()).isEqualTo(ExitCode.USAGE);
  }
}
