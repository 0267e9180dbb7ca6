package org.jverity.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IniFileTest {
  @Test
  void readsSectionsKeysAndValuesWithTheirLines() {
    IniFile ini =
        IniFile.parse(
            "x.conf",
            """
        # a comment
        ; another
        [generic]
          port = 10809

        [root fs]
        description = "  spaced # not a comment "
        data=/images/root.img
        """);
    assertThat(ini.sections())
        .extracting(IniFile.Section::name)
        .containsExactly("generic", "root fs");
    IniFile.Section export = ini.sections().get(1);
    assertThat(export.line()).isEqualTo(6);
    assertThat(export.entries().get("description").value()).isEqualTo("  spaced # not a comment ");
    assertThat(export.entries().get("data"))
        .isEqualTo(new IniFile.Entry("data", "/images/root.img", 8));
    assertThat(ini.sections().get(0).entries().get("port").value()).isEqualTo("10809");
  }

  @Test
  void acceptsCrlfAndAnEmptyValue() {
    IniFile ini = IniFile.parse("x.conf", "[a]\r\nsalt =\r\n");
    assertThat(ini.sections().get(0).entries().get("salt").value()).isEmpty();
  }

  @Test
  void skipsAUtf8ByteOrderMarkAtTheStartOnly() {
    IniFile ini = IniFile.parse("x.conf", "\ufeff[generic]\nport = 1\n");
    assertThat(ini.sections().get(0).name()).isEqualTo("generic");
    assertThat(ini.sections().get(0).line()).isEqualTo(1);
    assertThatThrownBy(() -> IniFile.parse("x.conf", "[a]\n\ufeff[b]\n"))
        .hasMessageStartingWith("x.conf:2: line:");
  }

  @Test
  void refusesAKeyOutsideASection() {
    assertThatThrownBy(() -> IniFile.parse("x.conf", "\nport = 1\n"))
        .hasMessage("x.conf:2: port: outside any section (expected: a [section] header first)");
  }

  @Test
  void refusesALineThatIsNeitherKeyNorSection() {
    assertThatThrownBy(() -> IniFile.parse("x.conf", "[a]\njunk\n"))
        .hasMessage("x.conf:2: line: junk (expected: key = value, [section], or a # comment)");
    assertThatThrownBy(() -> IniFile.parse("x.conf", "[a\n"))
        .hasMessage("x.conf:1: section header: [a (expected: [name])");
  }

  @Test
  void refusesRepeatedSectionsAndKeys() {
    assertThatThrownBy(() -> IniFile.parse("x.conf", "[a]\n[b]\n[a]\n"))
        .hasMessage("x.conf:3: section [a]: repeated (first on line 1)");
    assertThatThrownBy(() -> IniFile.parse("x.conf", "[a]\nk = 1\nk = 2\n"))
        .hasMessage("x.conf:3: k: repeated in [a] (first on line 2)");
  }
}
