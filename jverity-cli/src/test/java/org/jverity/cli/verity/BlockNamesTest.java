package org.jverity.cli.verity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.fec.FecRecovery;
import org.jverity.format.VerityParams;
import org.jverity.tree.Area;
import org.jverity.tree.Corruption;
import org.jverity.verify.CorruptBlockException;

/**
 * Blocks named with their position (verify, read) and without (repair), for an image of 1000 4 KiB
 * blocks with SHA-256 and no superblock: the hash file holds level 1 in block 0 and level 0 (1000 /
 * 128 digests per block, 8 blocks) in blocks 1 to 8.
 */
class BlockNamesTest {
  private static final VerityParams P =
      VerityParams.builder().blockSize(4096).dataBlocks(1000).superblock(false).build();

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 0   | data block 0 (position 0)
      DATA | 999 | data block 999 (position 4091904)
      HASH | 0   | hash block 0 (level 1, position 0)
      HASH | 8   | hash block 8 (level 0, position 32768)
      """)
  void namesABlockKnownByNumberWithItsPosition(Area area, long block, String text) {
    assertThat(BlockNames.of(area, block, P)).isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 3 | -1 | data block 3 (position 12288)
      HASH | 2 | 0  | hash block 2 (level 0, position 8192)
      """)
  void namesTheBlockAReadMet(Area area, long block, int level, String text) {
    assertThat(BlockNames.of(new CorruptBlockException("f", area, block, level), P))
        .isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DIGEST_MISMATCH | hash block 1 (level 0, position 4096)
      SPARE_NOT_ZERO  | hash block 1 (level 0, position 4096, spare area not zeroed)
      """)
  void namesACheckedCorruption(Corruption.Kind kind, String text) {
    assertThat(BlockNames.of(new Corruption(Area.HASH, 1, 0, kind), P)).isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 17 | data block 17
      HASH | 0  | hash block 0 (level 1)
      HASH | 5  | hash block 5 (level 0)
      """)
  void repairNamesAFixWithoutPosition(Area area, long block, String text) {
    assertThat(RepairCommand.describe(new FecRecovery.Fix(area, block, new byte[0], 1), P))
        .isEqualTo(text);
  }
}
