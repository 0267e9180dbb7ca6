package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.verify.AvbFixtures.Hashtree;
import org.jverity.format.Hex;
import org.jverity.hash.HashAlgorithm;

class DmVerityTableTest {
  private static final String SALT =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  private static final String ROOT =
      "8aa2f74295ea42326038971b0ff0db96b3e2319ac9a5d3fc18fd5e9cd7230a8e";

  @TempDir Path dir;

  /** AVB.md 4.4's image: 1 MiB pattern, sha256, salt 00..1f, FEC 2 roots, check_at_most_once. */
  private HashtreeDescriptor avbMdExample() throws Exception {
    Hashtree h =
        new Hashtree(
            "system",
            HashAlgorithm.SHA256,
            AvbFixtures.salt32(),
            2,
            HashtreeDescriptor.FLAG_CHECK_AT_MOST_ONCE);
    return AvbFixtures.hashtreeImage(
            dir.resolve("system.img"),
            AvbFixtures.pattern(1 << 20, 0),
            h,
            AvbFixtures.rsa2048(),
            b -> b)
        .hashtree();
  }

  @Test
  void avbtoolCmdlineIsAvbMdsTextForTheBuiltImage() throws Exception {
    HashtreeDescriptor d = avbMdExample();
    assertThat(Hex.format(d.rootDigest())).isEqualTo(ROOT); // AVB.md's vector
    assertThat(DmVerityTable.avbtoolCmdline(d))
        .isEqualTo(
            "dm=\"1 vroot none ro 1,0 2048 verity 1 PARTUUID=$(ANDROID_SYSTEM_PARTUUID)"
                + " PARTUUID=$(ANDROID_SYSTEM_PARTUUID) 4096 4096 256 256 sha256 "
                + ROOT
                + " "
                + SALT
                + " 11 check_at_most_once $(ANDROID_VERITY_MODE) ignore_zero_blocks"
                + " use_fec_from_device PARTUUID=$(ANDROID_SYSTEM_PARTUUID) fec_roots 2"
                + " fec_blocks 259 fec_start 259\" root=/dev/dm-0");
    assertThat(DmVerityTable.AVBTOOL_CMDLINE_HASHTREE_DISABLED)
        .isEqualTo("root=PARTUUID=$(ANDROID_SYSTEM_PARTUUID)");
  }

  @Test
  void avbtoolCmdlineWithoutFecOrCheckAtMostOnceCountsTwoArguments() {
    HashtreeDescriptor d = descriptor(256, 12288, 0, 0, 0, 0);
    assertThat(DmVerityTable.avbtoolCmdline(d))
        .endsWith(" " + SALT + " 2 $(ANDROID_VERITY_MODE) ignore_zero_blocks\" root=/dev/dm-0");
  }

  @Test
  void libfsAvbTableHasTheShapeOfAvbrootsLogLine() {
    // avbroot #405: 307717 data blocks, FEC from block 310142, enforcing.
    HashtreeDescriptor d = descriptor(307717, 0, 2, 310142L * 4096, 4096, 0);
    assertThat(DmVerityTable.libfsAvb(d, "/dev/block/dm-1"))
        .isEqualTo(
            "1 /dev/block/dm-1 /dev/block/dm-1 4096 4096 307717 307717 sha256 "
                + ROOT
                + " "
                + SALT
                + " 10 use_fec_from_device /dev/block/dm-1 fec_roots 2 fec_blocks 310142"
                + " fec_start 310142 restart_on_corruption ignore_zero_blocks");
  }

  @Test
  void libfsAvbTableFollowsTheVerityMode() throws Exception {
    HashtreeDescriptor d = avbMdExample();
    String head = "1 DEV DEV 4096 4096 256 256 sha256 " + ROOT + " " + SALT;
    String fec = "use_fec_from_device DEV fec_roots 2 fec_blocks 259 fec_start 259";
    assertThat(DmVerityTable.libfsAvb(d, "DEV", AndroidVerityMode.LOGGING))
        .isEqualTo(head + " 10 " + fec + " ignore_corruption ignore_zero_blocks");
    assertThat(DmVerityTable.libfsAvb(d, "DEV", AndroidVerityMode.EIO))
        .isEqualTo(head + " 9 " + fec + " ignore_zero_blocks");
    HashtreeDescriptor noFec = descriptor(256, 12288, 2, 1060864, 0, 0); // fec_size 0: no FEC
    assertThat(DmVerityTable.libfsAvb(noFec, "DEV"))
        .isEqualTo(head + " 2 restart_on_corruption ignore_zero_blocks");
  }

  @Test
  void veritysetupOpenNamesTheTreeAndFecInTheSameImage() throws Exception {
    HashtreeDescriptor d = avbMdExample();
    assertThat(DmVerityTable.veritysetupOpen(d, "system.img", "vroot"))
        .isEqualTo(
            "veritysetup open --no-superblock --format=1 --hash=sha256 --data-block-size=4096"
                + " --hash-block-size=4096 --data-blocks=256 --hash-offset=1048576 --salt="
                + SALT
                + " --fec-device=system.img --fec-offset=1060864 --fec-roots=2"
                + " system.img vroot system.img "
                + ROOT);
    assertThat(DmVerityTable.veritysetupOpen(d, "my system.img", "v"))
        .contains(" '--fec-device=my system.img' ")
        .endsWith(" 'my system.img' v 'my system.img' " + ROOT);
  }

  @Test
  void anEmptySaltIsWrittenAsDash() {
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1, 4096, 4096, 0, 4096, 4096, 0, 0, 0, "sha256", "s", new byte[0], new byte[32], 0);
    assertThat(DmVerityTable.libfsAvb(d, "D")).contains(" " + "00".repeat(32) + " - 2 ");
    assertThat(DmVerityTable.veritysetupOptions(d, "D")).contains("--salt=-");
    assertThat(DmVerityTable.veritysetupOptions(d, "D"))
        .doesNotContain("--fec-device=D")
        .isEqualTo(
            List.of(
                "--no-superblock",
                "--format=1",
                "--hash=sha256",
                "--data-block-size=4096",
                "--hash-block-size=4096",
                "--data-blocks=1",
                "--hash-offset=4096",
                "--salt=-"));
  }

  private static HashtreeDescriptor descriptor(
      long blocks, long treeSize, int roots, long fecOffset, long fecSize, int flags) {
    return new HashtreeDescriptor(
        1,
        blocks * 4096,
        blocks * 4096,
        treeSize,
        4096,
        4096,
        roots,
        fecOffset,
        fecSize,
        "sha256",
        "system",
        Hex.parse("salt", SALT),
        Hex.parse("root", ROOT),
        flags);
  }
}
