package org.jverity.cli.verity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where damage ends and a hash file made for other data begins. */
class DataMismatchTest {
  @ParameterizedTest(name = "{0} of {1}: {2}")
  @CsvSource({
    "1022, 1024, true", // another image's hash file: all but a shared block or two
    "513, 1024, true", // more than half
    "512, 1024, false", // half: still damage
    "100, 1024, false", // a damaged run of blocks
    "16, 31, true", // small image, most blocks
    "16, 32, false",
    "15, 15, false", // every block of a tiny image: fewer than MIN_BLOCKS, named one by one
    "0, 0, false",
  })
  void foreignWhenMoreThanHalfAndAtLeastSixteen(long mismatched, long checked, boolean foreign) {
    assertThat(new DataMismatch(mismatched, checked, false).foreign()).isEqualTo(foreign);
  }

  @ParameterizedTest(name = "sampled {0}")
  @CsvSource({
    "false, 1022 of 1024 data blocks mismatch",
    "true, 1022 of 1024 data blocks sampled mismatch"
  })
  void theLineSaysWhetherItCountsASample(boolean sampled, String counts) {
    assertThat(new DataMismatch(1022, 1024, sampled).describe())
        .startsWith("hash file does not belong to this data: " + counts);
  }
}
