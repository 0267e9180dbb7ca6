package org.jverity.cli.term;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The progress bar's frames, without a terminal: width, the 100% frame, the rate shown. */
class ProgressLineTest {
  static final long GIB = 1L << 30;

  @ParameterizedTest(name = "{0} columns")
  @ValueSource(ints = {1, 2, 10, 20, 39, 40, 41, 60, 79, 80, 81, 100, 132, 200, 400})
  void neverReachesTheLastColumn(int columns) {
    for (long done : new long[] {0, 1, GIB / 3, GIB - 1, GIB}) {
      String line = ProgressLine.render("verify", done, GIB, 987.6e6, columns);
      assertThat(line.length())
          .as("%d columns, %d done: %s", columns, done, line)
          .isLessThanOrEqualTo(Math.max(0, columns - 1));
    }
  }

  @Test
  void eightyColumnsShowBarPercentSizesAndRate() {
    String line = ProgressLine.render("verify", GIB / 2, GIB, 850e6, 80);
    assertThat(line).startsWith("verify [").contains("]  50%  512.0 MiB / 1.0 GiB  850 MB/s");
    assertThat(line)
        .hasSize(79); // the bar takes what the text leaves, up to the last column but one
    int cells = line.indexOf(']') - line.indexOf('[') - 1;
    assertThat(line.substring(line.indexOf('[') + 1, line.indexOf(']')))
        .isEqualTo("#".repeat(cells / 2) + ".".repeat(cells - cells / 2));
  }

  @Test
  void aWideTerminalGetsABarOfAtMostMaxCells() {
    String line = ProgressLine.render("format", 0, GIB, -1, 300);
    assertThat(line.indexOf(']') - line.indexOf('[') - 1).isEqualTo(ProgressLine.MAX_BAR);
  }

  @Test
  void aNarrowTerminalDropsTheBarBeforeTheNumbers() {
    String line = ProgressLine.render("verify", GIB / 4, GIB, 850e6, 50);
    assertThat(line).doesNotContain("[").isEqualTo("verify  25%  256.0 MiB / 1.0 GiB  850 MB/s");
  }

  @Test
  void fullBarAnd100PercentOnlyWhenAllIsDone() {
    assertThat(ProgressLine.render("read", GIB, GIB, 1e9, 80))
        .contains("100%")
        .doesNotContain(".]")
        .contains("1.0 GiB / 1.0 GiB");
    assertThat(ProgressLine.render("read", GIB - 1, GIB, 1e9, 80)).contains(" 99%").contains(".]");
  }

  @ParameterizedTest(name = "{0} of {1}: {2}%")
  @CsvSource({
    "0, 100, 0",
    "1, 100, 1",
    "99, 100, 99",
    "100, 100, 100",
    "150, 100, 100",
    "9223372036854775806, 9223372036854775807, 99",
    "0, 0, 100"
  })
  void percentRoundsDown(long done, long total, int percent) {
    assertThat(ProgressLine.percent(done, total)).isEqualTo(percent);
  }

  @Test
  void anUnknownRateIsLeftOut() {
    assertThat(ProgressLine.render("read", 0, GIB, -1, 80))
        .doesNotContain("MB/s")
        .endsWith("0 B / 1.0 GiB");
  }
}
