package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.verify.CorruptBlockException;

/** The one way a block is named: the texts every message about a block is built from. */
class BlockRefTest {

  @ParameterizedTest(name = "{0} {1} level {2} -> {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 0    | -1 | data block 0
      DATA | 1234 | -1 | data block 1234
      HASH | 7    | 0  | hash block 7 (level 0)
      HASH | 12   | 3  | hash block 12 (level 3)
      HASH | 7    | -1 | hash block 7
      """)
  void printsTheBlockAsTheKernelNamesIt(Area area, long block, int level, String text) {
    assertThat(new BlockRef(area, block, level)).hasToString(text);
  }

  @ParameterizedTest(name = "{0} {1} level {2} -> {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 1234 | -1 | data block 1234 (position 5054464)
      HASH | 7    | 0  | hash block 7 (level 0, position 28672)
      HASH | 7    | -1 | hash block 7 (position 28672)
      """)
  void putsNotesInsideTheParenthesisAfterTheLevel(Area area, long block, int level, String text) {
    assertThat(new BlockRef(area, block, level).describe("position " + block * 4096, null))
        .isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} {1} level {2} {3} -> {4}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 5 | -1 | DIGEST_MISMATCH | data block 5
      HASH | 9 | 1  | DIGEST_MISMATCH | hash block 9 (level 1)
      HASH | 9 | 0  | SPARE_NOT_ZERO  | hash block 9 (level 0, spare area not zeroed)
      """)
  void namesACorruptionFoundByTheChecker(
      Area area, long block, int level, Corruption.Kind kind, String text) {
    assertThat(new Corruption(area, block, level, kind).describe()).isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} {1} level {2} -> {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      DATA | 1234 | -1 | data.img: data block 1234 is corrupted
      HASH | 12   | 0  | hash.img: hash block 12 (level 0) is corrupted
      """)
  void namesTheBlockAReadMet(Area area, long block, int level, String message) {
    String source = area == Area.DATA ? "data.img" : "hash.img";
    CorruptBlockException e = new CorruptBlockException(source, area, block, level);
    assertThat(e).hasMessage(message);
    assertThat(e.ref()).isEqualTo(new BlockRef(area, block, level));
  }
}
