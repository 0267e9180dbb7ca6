package org.jverity.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON document, strictly (RFC 8259: no trailing commas, no comments, nothing after the
 * value): objects as ordered maps, arrays as lists, integers as longs, other numbers as doubles.
 * For {@link Json#parse}; one instance per document.
 */
final class JsonParser {
  private static final int MAX_DEPTH = 64; // jverity's documents are two or three levels deep

  private final String text;
  private int at;

  JsonParser(String text) {
    this.text = text;
  }

  Object document() {
    Object v = value(0);
    space();
    if (at != text.length()) {
      throw fail("text after the value");
    }
    return v;
  }

  private Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw fail("nested too deep");
    }
    space();
    if (at >= text.length()) {
      throw fail("a value expected");
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> word("true", Boolean.TRUE);
      case 'f' -> word("false", Boolean.FALSE);
      case 'n' -> word("null", null);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw fail("unexpected '" + c + "'");
      }
    };
  }

  private Map<String, Object> object(int depth) {
    Map<String, Object> m = new LinkedHashMap<>();
    at++; // {
    space();
    if (peek('}')) {
      at++;
      return m;
    }
    while (true) {
      space();
      if (!peek('"')) {
        throw fail("a key expected");
      }
      String key = string();
      space();
      expect(':');
      if (m.containsKey(key)) {
        throw fail("key \"" + key + "\" twice");
      }
      m.put(key, value(depth + 1));
      space();
      if (peek(',')) {
        at++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array(int depth) {
    List<Object> l = new ArrayList<>();
    at++; // [
    space();
    if (peek(']')) {
      at++;
      return l;
    }
    while (true) {
      l.add(value(depth + 1));
      space();
      if (peek(',')) {
        at++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    at++; // "
    StringBuilder s = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw fail("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return s.toString();
      }
      if (c < 0x20) {
        throw fail("control character in a string");
      }
      if (c != '\\') {
        s.append(c);
        continue;
      }
      if (at >= text.length()) {
        throw fail("unterminated string");
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"', '\\', '/' -> s.append(e);
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw fail("short \\u escape");
          }
          try {
            s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException x) {
            throw fail("bad \\u escape");
          }
          at += 4;
        }
        default -> throw fail("bad escape \\" + e);
      }
    }
  }

  private Object number() {
    int start = at;
    if (peek('-')) {
      at++;
    }
    if (peek('0')) {
      at++;
    } else if (!digits()) {
      throw fail("a digit expected");
    }
    boolean integer = true;
    if (peek('.')) {
      at++;
      integer = false;
      if (!digits()) {
        throw fail("a digit expected after '.'");
      }
    }
    if (peek('e') || peek('E')) {
      at++;
      integer = false;
      if (peek('+') || peek('-')) {
        at++;
      }
      if (!digits()) {
        throw fail("a digit expected in the exponent");
      }
    }
    String n = text.substring(start, at);
    if (integer) {
      try {
        return Long.parseLong(n);
      } catch (NumberFormatException tooBig) {
        // as a double, below
      }
    }
    return Double.parseDouble(n);
  }

  private boolean digits() {
    int start = at;
    while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
      at++;
    }
    return at > start;
  }

  private Object word(String w, Object v) {
    if (!text.startsWith(w, at)) {
      throw fail("unexpected '" + text.charAt(at) + "'");
    }
    at += w.length();
    return v;
  }

  private void space() {
    while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
  }

  private boolean peek(char c) {
    return at < text.length() && text.charAt(at) == c;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw fail("'" + c + "' expected");
    }
    at++;
  }

  private IllegalArgumentException fail(String what) {
    return new IllegalArgumentException("not JSON: " + what + " at character " + at);
  }
}
