package org.jverity.cli.syntax;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.jverity.format.Hex;
import org.jverity.format.VerityParameterException;
import org.jverity.testkit.ParserContract;

/**
 * The values of options as a command line or a config file gives them: sizes, whole numbers,
 * durations, ports, I/O classes, flags and hex (salt, root hash). The first byte of a seed picks
 * the parser ({@code '0'} to {@code '6'}, modulo 7), the rest is the text: each parser returns a
 * value in its range or a {@link BadValue} (hex: {@link VerityParameterException}), and what it
 * returns, written back, parses to the same value.
 */
class OptionValuesFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    if (bytes.length == 0) {
      return;
    }
    String text = new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
    ParserContract.holds(
        bytes.length,
        () -> {
          switch (Math.floorMod(bytes[0] - '0', 7)) {
            case 0 -> {
              long n = ByteSize.parse(text);
              assertThat(n).isNotNegative();
              assertThat(ByteSize.parse(Long.toString(n))).isEqualTo(n);
            }
            case 1 -> {
              long n = WholeNumber.parseLong(text);
              assertThat(WholeNumber.parseLong(Long.toString(n))).isEqualTo(n);
              WholeNumber.parseInt(text);
            }
            case 2 -> assertThat(TimeSpan.parse(text).isNegative()).isFalse();
            case 3 -> assertThat(Port.parse(text)).isBetween(0, 65535);
            case 4 -> IoClassName.parse(text);
            case 5 -> Syntax.truth(text);
            default -> {
              byte[] b = Hex.parse("salt", text);
              assertThat(Hex.parse("salt", Hex.format(b))).isEqualTo(b);
            }
          }
        },
        BadValue.class,
        VerityParameterException.class);
  }
}
