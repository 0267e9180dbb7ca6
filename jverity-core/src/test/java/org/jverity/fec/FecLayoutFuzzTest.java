package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testkit.ParserContract;

/**
 * FEC parameters as a command line or a superblock gives them (roots, offset, on the hash device or
 * not, the hash device's size, the tree's sizes): a layout whose arithmetic holds for every message
 * block, or a {@link VerityParameterException}.
 */
class FecLayoutFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void layoutIsConsistentOrRefused(FuzzedDataProvider in) {
    int blockShift = in.consumeInt(9, 19);
    long dataBlocks = in.consumeLong();
    int roots = in.consumeInt(0, 30);
    long fecOffset = in.consumeLong();
    boolean onHash = in.consumeBoolean();
    long hashDeviceSize = in.consumeLong();
    long[] probes = in.consumeLongs(8);
    ParserContract.holds(
        64,
        () -> {
          VerityParams p =
              VerityParams.builder()
                  .hashAlgorithm(HashAlgorithm.SHA256)
                  .dataBlockSize(1 << blockShift)
                  .hashBlockSize(1 << blockShift)
                  .dataBlocks(dataBlocks)
                  .superblock(false)
                  .build();
          FecLayout l = FecLayout.of(p, roots, fecOffset, onHash, hashDeviceSize);
          assertThat(l.messageBlocks()).isPositive();
          long end = Math.addExact(l.fecOffset(), l.paritySize()); // the parity fits a device
          assertThat(l.parityOffset(l.rounds() - 1) + (long) l.blockSize() * roots).isEqualTo(end);
          for (long probe : probes) {
            long m = Math.floorMod(probe, l.messageBlocks());
            assertThat(l.row(m)).isBetween(0, l.messageLength() - 1);
            assertThat(l.messageIndex(l.round(m), l.row(m))).isEqualTo(m);
            if (!l.isData(m)) {
              assertThat(l.messageIndexOfHash(l.hashBlockOf(m))).isEqualTo(m);
            }
          }
        },
        VerityParameterException.class);
  }
}
