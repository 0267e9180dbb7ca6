package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.avb;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.read;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;

/**
 * A hashtree descriptor whose tree offset and size, each below 2^63 as the parser takes them, add
 * past 2^63: {@code erase_footer --keep_hashtree} and {@code zero_hashtree} refuse it in one line
 * (exit 17) and leave the image as it was, rather than wrapping to a negative end.
 */
class HostileOffsetsTest {
  private static final long HUGE = Long.MAX_VALUE - 4095; // u64, below 2^63: parsed

  @TempDir Path dir;

  private Path hostile() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 64 * 1024);
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        1024 * 1024,
        "--partition_name",
        "system",
        "--salt",
        "00");
    AvbCommandKit.patchDescriptor(img, 28, HUGE); // tree_offset
    AvbCommandKit.patchDescriptor(img, 36, HUGE); // tree_size
    AvbCommandKit.patchDescriptor(img, 56, 0L); // fec_offset: no FEC
    return img;
  }

  @Test
  void eraseFooterKeepingTheHashtreeRefusesAnEndPast2To63() throws Exception {
    Path img = hostile();
    byte[] before = read(img);
    ToolRun r = avb("erase_footer", "--image", img, "--keep_hashtree");
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: " + img + ": footer says the image ends at ");
    assertThat(read(img)).isEqualTo(before);
  }

  @Test
  void zeroHashtreeRefusesAnEndPast2To63() throws Exception {
    Path img = hostile();
    byte[] before = read(img);
    ToolRun r = avb("zero_hashtree", "--image", img);
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(ExitCode.AVB_INVALID);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith("jverity: " + img + ": tree and FEC end at ");
    assertThat(read(img)).isEqualTo(before);
  }
}
