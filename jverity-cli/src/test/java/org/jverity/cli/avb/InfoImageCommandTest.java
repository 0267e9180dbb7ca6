package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbFixtures.avb;
import static org.jverity.cli.avb.AvbFixtures.ok;
import static org.jverity.cli.avb.AvbFixtures.pattern;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.AvbVectors;

/** {@code jverity avb info_image}: AVB.md 6's text line for line, then the dm-verity lines. */
class InfoImageCommandTest {
  @TempDir Path dir;

  static final String SALT = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

  static final String AVBTOOL_TEXT = AvbVectors.INFO_IMAGE_SAMPLE;

  @Test
  void avbMdExampleThenTheDmVerityLines() throws Exception {
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
    String out = ok("info_image", "--image", img).stdout();
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
    ok("info_image", "--image", img, "--output", text);
    assertThat(Files.readString(text)).isEqualTo(out);
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
