package org.jverity.cli.ddi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;
import org.jverity.text.Json;

/**
 * A signed DDI jverity built, as systemd-dissect 252 lists it ({@code --json=short}, nothing
 * activated: this kernel has no dm-verity, and listing needs none) against {@code jverity ddi
 * inspect --json}: for each partition its designator, partition UUID, label, architecture,
 * read-only state, number and file system type, the root's verity "signed"; each partition's start
 * and size as the kernel's partition scan of a {@code losetup -r -P --sector-size} loop device has
 * them. With 512-byte sectors systemd-dissect reads the file itself; with 4096-byte sectors 252
 * cannot (its loop device has 512-byte sectors, where no GPT is found, and it says so) and reads a
 * loop device of 4096-byte sectors instead. Needs root and loop devices.
 */
class SystemdDissectTest {
  @TempDir Path dir;
  private DdiImages images;
  private Path fs;

  @BeforeAll
  static void root() {
    var id = Tool.of("id").run("-u").ok();
    if (!id.out().strip().equals("0")) {
      fail("SystemdDissectTest needs root (losetup, systemd-dissect), runs as uid %s", id.out());
    }
    Tool.of("systemd-dissect").require();
  }

  @BeforeEach
  void fileSystem() throws Exception {
    images = new DdiImages(dir);
    Path src = Files.createDirectories(dir.resolve("src"));
    byte[] b = new byte[500_000];
    new SplittableRandom(252).nextBytes(b);
    Files.write(src.resolve("app.bin"), b);
    fs = images.ext4(src, "rootfs.ext4");
  }

  @ParameterizedTest
  @ValueSource(ints = {512, 4096})
  void systemdDissectListsWhatInspectSays(int sectorSize) throws Exception {
    Path image = images.signed(fs, "image.raw", "--sector-size", String.valueOf(sectorSize));
    Map<?, ?> ours = DdiImages.inspect(image);
    assertThat(ours.get("sectorSize")).isEqualTo((long) sectorSize);
    String loop =
        Tool.of("losetup")
            .run(
                "-r",
                "-P",
                "--sector-size",
                String.valueOf(sectorSize),
                "-f",
                "--show",
                image.toString())
            .ok()
            .out()
            .strip();
    try {
      Map<?, ?> dissect = dissect(loop);
      assertSameListing(dissect, ours, loop);
      assertThat(((Number) dissect.get("size")).longValue()).isEqualTo(Files.size(image));
    } finally {
      Tool.of("losetup").run("-d", loop).ok();
    }
  }

  @Test
  void onTheFileItselfSystemdDissectListsA512ByteSectorImage() throws Exception {
    Path image = images.signed(fs, "image.raw");
    Map<?, ?> dissect = dissect(image.toString());
    assertThat(dissect.get("name")).isEqualTo("image.raw");
    assertSameListing(dissect, DdiImages.inspect(image), null);
  }

  @Test
  void onTheFileItselfSystemdDissect252FindsNoTableInA4096ByteSectorImage() throws Exception {
    Path image = images.signed(fs, "image.raw", "--sector-size", "4096");
    ToolResult r = Tool.of("systemd-dissect").run("--no-pager", "--json=short", image.toString());
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.stderr().strip())
        .isEqualTo(image + ": Couldn't identify a suitable partition table or file system.");
  }

  /**
   * systemd-dissect's JSON of {@code target} (an image file or a loop device), with {@code
   * options}; it must list.
   */
  static Map<?, ?> dissect(String target, String... options) {
    List<String> args = new ArrayList<>(List.of("--no-pager", "--json=short"));
    args.addAll(List.of(options));
    args.add(target);
    ToolResult r = Tool.of("systemd-dissect").run(args);
    assertThat(r.exit()).as(r.toString()).isZero();
    return (Map<?, ?>) Json.parse(r.out());
  }

  /** The partition systemd-dissect lists for {@code designator}, by number, or -1 without one. */
  static int partno(Map<?, ?> dissect, String designator) {
    for (Object o : (List<?>) dissect.get("mounts")) {
      Map<?, ?> m = (Map<?, ?>) o;
      if (designator.equals(m.get("designator"))) {
        return ((Number) m.get("partno")).intValue();
      }
    }
    return -1;
  }

  /**
   * Each partition systemd-dissect lists is inspect's of the same number, field by field; with
   * {@code loop}, also where the kernel's scan of it puts the partition.
   */
  private static void assertSameListing(Map<?, ?> dissect, Map<?, ?> ours, String loop)
      throws Exception {
    List<?> mounts = (List<?>) dissect.get("mounts");
    assertThat(mounts).hasSameSizeAs((List<?>) ours.get("partitions")).hasSize(3);
    for (Object o : mounts) {
      Map<?, ?> m = (Map<?, ?>) o;
      int number = ((Number) m.get("partno")).intValue();
      Map<?, ?> p = DdiImages.partition(ours, number);
      String type = (String) p.get("type"); // e.g. root-x86-64-verity
      assertThat(m.get("designator")).isEqualTo(type.replace("-x86-64", ""));
      assertThat(m.get("architecture")).isEqualTo("x86-64");
      assertThat(m.get("partition_uuid")).isEqualTo(p.get("uuid"));
      assertThat(m.get("partition_label")).isEqualTo(p.get("label"));
      assertThat(m.get("rw")).as("%s", m).isEqualTo("ro");
      assertThat(m.get("growfs")).isEqualTo(false);
      switch (type) {
        case "root-x86-64" -> {
          assertThat(m.get("fstype")).isEqualTo("ext4");
          assertThat(m.get("verity")).isEqualTo("signed");
          assertThat((List<?>) p.get("flags")).anyMatch("read-only"::equals);
        }
        case "root-x86-64-verity" -> {
          assertThat(m.get("fstype")).isEqualTo("DM_verity_hash");
          assertThat((List<?>) p.get("flags")).anyMatch("read-only"::equals);
        }
        case "root-x86-64-verity-sig" ->
            assertThat(m.get("fstype")).isEqualTo("verity_hash_signature");
        default -> fail("systemd-dissect lists an unexpected partition: %s", m);
      }
      if (loop != null) {
        Path sys = Path.of("/sys/class/block", Path.of(loop).getFileName() + "p" + number);
        assertThat(sectors(sys.resolve("start")) * 512).isEqualTo(DdiImages.offset(p));
        assertThat(sectors(sys.resolve("size")) * 512).isEqualTo(DdiImages.size(p));
      }
    }
    Map<?, ?> use = (Map<?, ?>) ((List<?>) ours.get("wouldUse")).getFirst();
    assertThat(partno(dissect, "root")).isEqualTo(((Number) use.get("data")).intValue());
    assertThat(partno(dissect, "root-verity")).isEqualTo(((Number) use.get("verity")).intValue());
    assertThat(partno(dissect, "root-verity-sig"))
        .isEqualTo(((Number) use.get("signature")).intValue());
  }

  /** A sysfs count of 512-byte sectors, waiting up to 5 s for the kernel's scan to create it. */
  private static long sectors(Path file) throws Exception {
    for (int i = 0; i < 250 && !Files.exists(file); i++) {
      Thread.sleep(20);
    }
    return Long.parseLong(Files.readString(file).strip());
  }
}
