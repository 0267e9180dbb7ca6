package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.avb.verify.AvbFixtures.Built;
import org.jverity.avb.verify.AvbFixtures.Hashtree;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;
import org.jverity.tree.Area;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * An AVB image whose descriptor says fewer blocks than its tree was built for (an unsigned vbmeta,
 * accepted with {@code --avb-key none}): the tree, placed at the new image_size, still hashes to
 * the root digest, and only its padding (digests past the end) tells. AVB pads digests as dm-verity
 * format 1 does, so the read path refuses it as {@code veritysetup verify} does with the table's
 * options.
 */
class AvbShrunkTreeTest {
  private static final int BS = 4096;
  private static final int BUILT = 200; // blocks the tree is for: two level-0 blocks
  private static final int CLAIMED = 150; // blocks the descriptor says

  @TempDir Path dir;

  @Test
  void aTreeForMoreBlocksThanTheDescriptorSaysIsRefusedAsVeritysetupDoes() throws Exception {
    byte[] data = AvbFixtures.pattern(BUILT * BS, 0);
    Hashtree h = Hashtree.sha256("system", 0);
    VerityParams full =
        VerityParams.builder()
            .hashAlgorithm(HashAlgorithm.SHA256)
            .blockSize(BS)
            .dataBlocks(BUILT)
            .salt(h.salt())
            .superblock(false)
            .build();
    MemoryDevice tree = new MemoryDevice("tree");
    byte[] root = TreeBuilder.of(full).build(new MemoryDevice("data", data), tree);
    long claimedSize = (long) CLAIMED * BS;
    AvbTreeGeometry g = AvbTreeGeometry.of(claimedSize, BS, HashAlgorithm.SHA256, 0);
    assertThat(g.treeSize()).as("the same tree size").isEqualTo(tree.size());
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1,
            claimedSize,
            claimedSize,
            g.treeSize(),
            BS,
            BS,
            0,
            g.fecOffset(),
            g.fecSize(),
            "sha256",
            "system",
            h.salt(),
            root,
            0);
    Built b =
        AvbFixtures.hashtreeImage(
            dir.resolve("system.img"),
            Arrays.copyOf(data, CLAIMED * BS),
            h,
            AvbSigner.NONE,
            v -> v.descriptors(List.of(d)));
    try (FileDevice dev = FileDevice.openWrite(b.path())) {
      dev.writeFully(claimedSize, ByteBuffer.wrap(tree.toByteArray())); // the 200-block tree
      dev.flush();
    }

    AvbPartition p;
    try (BlockDevice dev = FileDevice.openRead(b.path())) {
      p = AvbPartition.open(dev, b.path().toString(), AvbTrust.unsigned(), AvbFixtures.AVB_KEY);
    }
    assertThat(p.params().dataBlocks()).isEqualTo(CLAIMED);

    String img = b.path().toString();
    List<String> args = new ArrayList<>(List.of("verify"));
    args.addAll(DmVerityTable.of(img, p.hashtree()).veritysetupOptions(img));
    args.addAll(List.of(img, img, Hex.format(p.rootDigest())));
    ToolResult theirs = Veritysetup.run(args);
    assertThat(theirs.exit()).as("veritysetup: %s", theirs).isEqualTo(2);
    assertThat(theirs.stderr()).contains("Spare area is not zeroed");

    try (BlockDevice dev = FileDevice.openRead(b.path());
        VerifiedReader r =
            VerifiedReader.open(
                p.params(),
                dev,
                dev,
                p.rootDigest(),
                new HashBlockCache(1 << 20),
                ReaderOptions.DEFAULTS)) {
      assertThat(r.read(0, BS)).as("block 0: its level-0 block is whole").hasSize(BS);
      assertThatThrownBy(() -> r.read((CLAIMED - 1L) * BS, BS))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.area()).isEqualTo(Area.HASH);
                assertThat(e.level()).isZero();
              });
    }
  }
}
