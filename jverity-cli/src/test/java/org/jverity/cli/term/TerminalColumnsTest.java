package org.jverity.cli.term;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where the progress bar's width comes from: $COLUMNS, stty, or 80. */
class TerminalColumnsTest {
  @Test
  void columnsVariableWins() {
    assertThat(TerminalColumns.of("132", Path.of("/nonexistent-tty"))).isEqualTo(132);
  }

  @Test
  void withoutAnyAnswerTheWidthIs80() {
    assertThat(TerminalColumns.of(null, null)).isEqualTo(TerminalColumns.DEFAULT).isEqualTo(80);
    assertThat(TerminalColumns.of("wide", Path.of("/nonexistent-tty"))).isEqualTo(80);
  }

  @Test
  void sttyOutputEndsWithANewline() {
    assertThat(TerminalColumns.parseStty("24 100\n")).isEqualTo(100);
  }

  @ParameterizedTest(name = "stty says \"{0}\": {1}")
  @CsvSource(
      delimiter = '|',
      value = {"24 80|80", "50 211|211", "0 0|0", "|0", "garbage|0", "24|0"})
  void sttyOutputIsRowsThenColumns(String output, int columns) {
    assertThat(TerminalColumns.parseStty(output)).isEqualTo(columns);
  }
}
