package org.jverity.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes the small, flat JSON documents jverity prints; values are strings, numbers, booleans,
 * lists and maps. Reads them back too ({@link #parse}): {@code status --json} gets its object from
 * the serving process.
 */
public final class Json {
  private Json() {}

  /** {@code value} indented, two spaces a level, and a newline: a document a person reads too. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, 0);
    return out.append('\n').toString();
  }

  /** {@code value} on one line, and a newline: one event of a stream, one object per line. */
  public static String line(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, -1);
    return out.append('\n').toString();
  }

  /** Parses one JSON document (RFC 8259, strictly): maps keep their order; integers are longs. */
  public static Object parse(String text) {
    return new JsonParser(text).document();
  }

  /** Indentation {@code indent} levels deep; none on one line ({@code indent} < 0). */
  private static void newline(StringBuilder out, int indent) {
    if (indent >= 0) {
      out.append('\n').append("  ".repeat(indent));
    }
  }

  private static void write(StringBuilder out, Object v, int indent) {
    int inner = indent < 0 ? -1 : indent + 1;
    switch (v) {
      case null -> out.append("null");
      case String s -> quote(out, s);
      case Number n -> out.append(n);
      case Boolean b -> out.append(b);
      case Map<?, ?> m -> {
        out.append('{');
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          out.append(i++ == 0 ? "" : ",");
          newline(out, inner);
          quote(out, String.valueOf(e.getKey()));
          out.append(indent < 0 ? ":" : ": ");
          write(out, e.getValue(), inner);
        }
        if (!m.isEmpty()) {
          newline(out, indent);
        }
        out.append('}');
      }
      case List<?> l -> {
        out.append('[');
        List<Object> items = new ArrayList<>(l);
        for (int i = 0; i < items.size(); i++) {
          out.append(i == 0 ? "" : ",");
          newline(out, inner);
          write(out, items.get(i), inner);
        }
        if (!items.isEmpty()) {
          newline(out, indent);
        }
        out.append(']');
      }
      default -> quote(out, v.toString());
    }
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
