package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.avb.tool.ParsedImage;
import org.jverity.avb.verify.DmVerityTable;
import org.jverity.fec.FecEncoder;
import org.jverity.fec.FecLayout;
import org.jverity.format.Hex;
import org.jverity.io.FileDevice;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;

/**
 * {@code add_hashtree_footer --block_size 1024} with FEC, docs/avb.md's difference from avbtool on
 * purpose: jverity's parity is in 1024-byte blocks, the unit the kernel's dm-verity-fec reads
 * (libfs_avb's table says {@code fec_blocks = fec_start = fec_offset / data_block_size}, and the
 * kernel interleaves in data blocks); avbtool's libfec always cuts 4096-byte blocks.
 */
class SmallBlockFecTest {
  private static final int BS = 1024;
  private static final int ROOTS = 24; // RS(255, 231): wrong parity is detected, not "repaired"
  private static final int SIZE = 300 * 1024; // 300 data blocks, 2 rounds at 1024 (k = 231)

  @TempDir Path dir;

  private Path image() throws Exception {
    Path img = pattern(dir.resolve("system.img"), SIZE);
    ok(
        "add_hashtree_footer",
        "--image",
        img,
        "--partition_size",
        1024 * 1024,
        "--partition_name",
        "system",
        "--block_size",
        BS,
        "--hash_algorithm",
        "sha256",
        "--salt",
        "00",
        "--fec_num_roots",
        ROOTS);
    return img;
  }

  private static HashtreeDescriptor descriptor(Path img) throws Exception {
    return ParsedImage.read(img).hashtree().orElseThrow();
  }

  /** {@code veritysetup verify} with the options the descriptor's table gives. */
  private static ToolResult veritysetupVerify(Path img, HashtreeDescriptor d) throws Exception {
    List<String> args = new ArrayList<>(List.of("verify"));
    args.addAll(DmVerityTable.of("t", d).veritysetupOptions(img.toString()));
    args.addAll(List.of(img.toString(), img.toString(), Hex.format(d.rootDigest())));
    return Veritysetup.run(args);
  }

  private static void flipByte(Path file, long offset) throws Exception {
    byte[] all = Files.readAllBytes(file);
    all[(int) offset] ^= 0x5a;
    Files.write(file, all);
  }

  @Test
  void whatJverityWritesIsWhatTheKernelsTableReadsAndCorrects() throws Exception {
    Path img = image();
    HashtreeDescriptor d = descriptor(img);
    long fecBlocks = d.fecOffset() / BS;
    assertThat(DmVerityTable.of("t", d).libfsAvb("DEV"))
        .startsWith("1 DEV DEV 1024 1024 300 300 sha256 ")
        .contains(
            " use_fec_from_device DEV fec_roots 24 fec_blocks "
                + fecBlocks
                + " fec_start "
                + fecBlocks
                + " ");
    // the descriptor's fec_size is the kernel's: ceil(fec_blocks / 231) rounds of 24 x 1024 bytes
    assertThat(d.fecSize()).isEqualTo(Math.ceilDiv(fecBlocks, 255 - ROOTS) * ROOTS * BS);
    ToolResult clean = veritysetupVerify(img, d);
    assertThat(clean.exit()).as("%s", clean).isZero();
    flipByte(img, 123L * BS + 77); // data block 123
    ToolResult damaged = veritysetupVerify(img, d);
    assertThat(damaged.exit()).as("%s", damaged).isZero();
    assertThat(damaged.out() + damaged.stderr()).contains("Found 1 repairable errors");
  }

  @Test
  void avbtoolsLayoutIn4096ByteBlocksDiffersAndTheKernelsTableCannotUseIt() throws Exception {
    Path img = image();
    HashtreeDescriptor d = descriptor(img);
    // libfec (fec --encode, which avbtool runs) over [0, fec_offset) in 4096-byte blocks
    FecLayout libfec = new FecLayout(4096, ROOTS, d.fecOffset() / 4096, 0, 0, 0);
    Path parity4096 = dir.resolve("libfec.parity");
    Files.write(parity4096, new byte[0]);
    try (FileDevice data = FileDevice.openRead(img);
        FileDevice out = FileDevice.openChannel(parity4096, true)) {
      FecEncoder.of(libfec).encode(data, data, out);
    }
    byte[] theirs = Files.readAllBytes(parity4096);
    // avbtool's descriptor would say libfec's size; jverity's says the kernel's
    assertThat((long) theirs.length)
        .isEqualTo(AvbTreeGeometry.fecSize(d.fecOffset(), ROOTS))
        .isNotEqualTo(d.fecSize());
    byte[] all = Files.readAllBytes(img);
    byte[] ours = Arrays.copyOfRange(all, (int) d.fecOffset(), (int) (d.fecOffset() + d.fecSize()));
    assertThat(Arrays.copyOf(theirs, ours.length)).isNotEqualTo(ours);
    // At 4096-byte blocks the two encodings are one: jverity's encoder there is libfec's.
    FecLayout ours4096 = new FecLayout(4096, ROOTS, d.fecOffset() / 4096, 0, 0, 0);
    assertThat(ours4096.paritySize()).isEqualTo(theirs.length);

    // The same image with avbtool's parity where the table says the FEC is: the kernel's reading
    // (veritysetup's, the same arithmetic) cannot correct one bad byte with it.
    byte[] withLibfec = Arrays.copyOf(all, (int) d.fecOffset() + theirs.length);
    System.arraycopy(theirs, 0, withLibfec, (int) d.fecOffset(), theirs.length);
    Path avbtoolLike = Files.write(dir.resolve("avbtool-like.img"), withLibfec);
    assertThat(veritysetupVerify(avbtoolLike, d).exit()).isZero(); // no damage: FEC unread
    flipByte(avbtoolLike, 123L * BS + 77);
    ToolResult damaged = veritysetupVerify(avbtoolLike, d);
    assertThat(damaged.exit()).as("%s", damaged).isNotZero();
    assertThat(damaged.out() + damaged.stderr()).doesNotContain("repairable errors");
  }
}
