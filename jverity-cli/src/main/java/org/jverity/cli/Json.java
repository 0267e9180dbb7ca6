package org.jverity.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Writes the small, flat JSON documents jverity prints; values are strings, numbers, booleans, lists and maps. */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, 0);
    return out.append('\n').toString();
  }

  private static void write(StringBuilder out, Object v, int indent) {
    switch (v) {
      case null -> out.append("null");
      case String s -> quote(out, s);
      case Number n -> out.append(n);
      case Boolean b -> out.append(b);
      case Map<?, ?> m -> {
        out.append('{');
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          out.append(i++ == 0 ? "\n" : ",\n").append("  ".repeat(indent + 1));
          quote(out, String.valueOf(e.getKey()));
          out.append(": ");
          write(out, e.getValue(), indent + 1);
        }
        out.append(m.isEmpty() ? "" : "\n" + "  ".repeat(indent)).append('}');
      }
      case List<?> l -> {
        out.append('[');
        List<Object> items = new ArrayList<>(l);
        for (int i = 0; i < items.size(); i++) {
          out.append(i == 0 ? "\n" : ",\n").append("  ".repeat(indent + 1));
          write(out, items.get(i), indent + 1);
        }
        out.append(items.isEmpty() ? "" : "\n" + "  ".repeat(indent)).append(']');
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
