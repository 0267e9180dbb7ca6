package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.avb.AvbVerificationException;
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
    assertThat(table(d).avbtoolCmdline())
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
  void avbtoolCmdlineWithoutFecOrCheckAtMostOnceCountsTwoArguments() throws Exception {
    HashtreeDescriptor d = descriptor(256, 12288, 0, 0, 0, 0);
    assertThat(table(d).avbtoolCmdline())
        .endsWith(" " + SALT + " 2 $(ANDROID_VERITY_MODE) ignore_zero_blocks\" root=/dev/dm-0");
  }

  @Test
  void libfsAvbTableHasTheShapeOfAvbrootsLogLine() throws Exception {
    // avbroot #405: 307717 data blocks, FEC from block 310142, enforcing.
    HashtreeDescriptor d = descriptor(307717, 0, 2, 310142L * 4096, 4096, 0);
    assertThat(table(d).libfsAvb("/dev/block/dm-1"))
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
    assertThat(table(d).libfsAvb("DEV", AndroidVerityMode.LOGGING))
        .isEqualTo(head + " 10 " + fec + " ignore_corruption ignore_zero_blocks");
    assertThat(table(d).libfsAvb("DEV", AndroidVerityMode.EIO))
        .isEqualTo(head + " 9 " + fec + " ignore_zero_blocks");
    HashtreeDescriptor noFec = descriptor(256, 12288, 2, 1060864, 0, 0); // fec_size 0: no FEC
    assertThat(table(noFec).libfsAvb("DEV"))
        .isEqualTo(head + " 2 restart_on_corruption ignore_zero_blocks");
  }

  @Test
  void veritysetupOpenNamesTheTreeAndFecInTheSameImage() throws Exception {
    HashtreeDescriptor d = avbMdExample();
    assertThat(table(d).veritysetupOpen("system.img", "vroot"))
        .isEqualTo(
            "veritysetup open --no-superblock --format=1 --hash=sha256 --data-block-size=4096"
                + " --hash-block-size=4096 --data-blocks=256 --hash-offset=1048576 --salt="
                + SALT
                + " --fec-device=system.img --fec-offset=1060864 --fec-roots=2"
                + " system.img vroot system.img "
                + ROOT);
    assertThat(table(d).veritysetupOpen("my system.img", "v"))
        .contains(" '--fec-device=my system.img' ")
        .endsWith(" 'my system.img' v 'my system.img' " + ROOT);
  }

  @Test
  void anEmptySaltIsWrittenAsDash() throws Exception {
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1, 4096, 4096, 0, 4096, 4096, 0, 0, 0, "sha256", "s", new byte[0], new byte[32], 0);
    assertThat(table(d).libfsAvb("D")).contains(" " + "00".repeat(32) + " - 2 ");
    assertThat(table(d).veritysetupOptions("D")).contains("--salt=-");
    assertThat(table(d).veritysetupOptions("D"))
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

  /**
   * A hostile descriptor's numbers are refused in one line before a division or a table the kernel
   * would misread: each field that the texts divide by or count in.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "data_block_size 0    | 1, 4096, 4096, 0, 4096, 2, 8192, 8192"
            + " | data_block_size 0 (expected: a power of two from 512 to 524288",
        "hash_block_size 0    | 1, 4096, 4096, 4096, 0, 2, 8192, 8192"
            + " | hash_block_size 0 (expected: a power of two from 512 to 524288",
        "data_block_size 1 MiB | 1, 1048576, 1048576, 1048576, 1048576, 0, 0, 0"
            + " | data_block_size 1048576 (expected: a power of two from 512 to 524288",
        "data_block_size 2^32-1 | 1, 4096, 4096, -1, 4096, 0, 0, 0"
            + " | data_block_size 4294967295 (expected",
        "data_block_size 3000 | 1, 6000, 6000, 3000, 3000, 0, 0, 0"
            + " | data_block_size 3000 (expected",
        "image_size           | 1, 5000, 8192, 4096, 4096, 0, 0, 0"
            + " | image_size 5000 (expected: a whole number of 4096-byte data blocks",
        "tree_offset          | 1, 4096, 5000, 4096, 4096, 0, 0, 0"
            + " | tree_offset 5000 (expected: a whole number of 4096-byte hash blocks",
        "fec_offset           | 1, 4096, 4096, 4096, 4096, 2, 5000, 8192"
            + " | fec_offset 5000 (expected: a whole number of 4096-byte data blocks",
        "fec_num_roots 0      | 1, 4096, 4096, 4096, 4096, 0, 8192, 8192"
            + " | fec_num_roots 0 with fec_size 8192 (expected: 2 to 24",
        "fec_num_roots 2^32-1 | 1, 4096, 4096, 4096, 4096, -1, 0, 0"
            + " | fec_num_roots 4294967295 with fec_size 0 (expected: 2 to 24",
        "dm_verity_version    | 7, 4096, 4096, 4096, 4096, 0, 0, 0"
            + " | dm_verity_version 7 (expected: 1, or 0",
      })
  void aHostileDescriptorIsRefusedInOneLineNamingTheField(
      String what, String fields, String message) {
    long[] f = Arrays.stream(fields.split(",")).mapToLong(x -> Long.parseLong(x.strip())).toArray();
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            (int) f[0],
            f[1],
            f[2],
            0,
            (int) f[3],
            (int) f[4],
            (int) f[5],
            f[6],
            f[7],
            "sha256",
            "system",
            Hex.parse("salt", SALT),
            Hex.parse("root", ROOT),
            0);
    assertThatThrownBy(() -> table(d))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("system: hashtree descriptor in t.img: " + message)
        .hasMessageNotContaining("\n");
  }

  private static DmVerityTable table(HashtreeDescriptor d) throws AvbVerificationException {
    return DmVerityTable.of("system: hashtree descriptor in t.img", d);
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
