package org.jverity.cli.term;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.jverity.cli.JsonCheck;
import org.jverity.text.Json;

/**
 * {@link Json}: what it writes, indented or on one line, Python's json module reads back to the
 * same values, and so does {@link Json#parse}, which refuses what is not strictly JSON (status
 * --json trusts it with what a serving process says).
 */
class JsonTest {
  @Test
  void writtenIndentedOrOnOneLineReadsBackTheSame() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("text", "quote \" backslash \\ tab \t newline \n bell \u0007 é 日本");
    m.put("long", Long.MAX_VALUE);
    m.put("negative", -42);
    m.put("yes", true);
    m.put("none", null);
    m.put("list", List.of(1, "two", List.of(), Map.of()));
    m.put("nested", Map.of("k", List.of(Map.of("x", 0))));
    for (String text : List.of(Json.write(m), Json.line(m))) {
      assertThat(JsonCheck.object(text)).isEqualTo(Json.parse(Json.write(m)));
    }
    assertThat(Json.line(m)).endsWith("}\n").doesNotContain("\n ").hasLineCount(1);
    Map<?, ?> back = (Map<?, ?>) Json.parse(Json.line(m));
    assertThat(back.get("text")).isEqualTo(m.get("text"));
    assertThat(back.get("long")).isEqualTo(Long.MAX_VALUE);
    assertThat(back.get("negative")).isEqualTo(-42L);
    assertThat(back.containsKey("none")).isTrue();
    assertThat(List.<Object>copyOf(back.keySet())).containsExactlyElementsOf(m.keySet());
  }

  @Test
  void parseRefusesWhatIsNotStrictlyJson() {
    for (String bad :
        List.of(
            "",
            "{",
            "{\"a\":1,}",
            "[1,]",
            "[1] x",
            "{\"a\":1,\"a\":2}",
            "01",
            "1.",
            "-",
            "NaN",
            "'a'",
            "\"\u0001\"",
            "\"\\x\"",
            "{a:1}",
            "[1 2]",
            "tru",
            "\"\\u12\"")) {
      assertThatThrownBy(() -> Json.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("not JSON: ");
    }
    assertThat(Json.parse(" [1.5e3, -0, \"\\u00e9\\/\"] ")).isEqualTo(List.of(1500.0, 0L, "é/"));
    assertThatThrownBy(() -> Json.parse("[".repeat(100) + "]".repeat(100)))
        .hasMessageContaining("nested too deep");
  }
}
