package org.jverity.sig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a file given as a key or a certificate holds, told from its bytes, so that a refusal says
 * what is wrong with which file ("key.der: not a PEM private key: DER (binary) ...") instead of a
 * decoder's words (a DER file read as ASCII text gives "Input length = 1"). Stateless.
 */
public final class KeyFiles {
  /** Larger than any key or certificate bundle; a bigger file is refused before it is read. */
  public static final long MAX_SIZE = 16L << 20;

  private static final Pattern BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----");

  private KeyFiles() {}

  /**
   * The bytes of {@code file}, at most {@link #MAX_SIZE}.
   *
   * @param what what the file should be, for the refusal: "a PEM private key"
   */
  public static byte[] read(Path file, String what) throws IOException {
    long size = Files.size(file);
    if (size > MAX_SIZE) {
      throw new IOException(
          file + ": " + size + " bytes (expected: " + what + ", at most " + MAX_SIZE + " bytes)");
    }
    return Files.readAllBytes(file);
  }

  /** The labels of the file's PEM blocks, in order ("RSA PRIVATE KEY", "CERTIFICATE"). */
  public static List<String> pemLabels(byte[] bytes) {
    List<String> labels = new ArrayList<>();
    Matcher m = BEGIN.matcher(new String(bytes, StandardCharsets.ISO_8859_1));
    while (m.find()) {
      labels.add(m.group(1));
    }
    return labels;
  }

  /** Whether the bytes start as DER does: an ASN.1 SEQUENCE whose length fits the file. */
  public static boolean isDer(byte[] b) {
    if (b.length < 2 || b[0] != 0x30) {
      return false;
    }
    int first = b[1] & 0xff;
    if (first < 0x80) {
      return first + 2 == b.length;
    }
    int n = first & 0x7f;
    if (n == 0 || n > 4 || b.length < 2 + n) {
      return false;
    }
    long length = 0;
    for (int i = 0; i < n; i++) {
      length = length << 8 | (b[2 + i] & 0xff);
    }
    return 2 + n + length == b.length;
  }

  /**
   * The file's content in a few words: "empty", "a PEM CERTIFICATE", "DER (binary ASN.1)",
   * "binary", "text without a '-----BEGIN' line".
   */
  public static String describe(byte[] bytes) {
    if (bytes.length == 0) {
      return "empty";
    }
    List<String> labels = pemLabels(bytes);
    if (!labels.isEmpty()) {
      return "a PEM " + String.join(" and a PEM ", labels.stream().distinct().toList());
    }
    if (isDer(bytes)) {
      return "DER (binary ASN.1)";
    }
    for (byte c : bytes) {
      if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f || c < 0) {
        return "binary";
      }
    }
    return "text without a '-----BEGIN' line";
  }

  /**
   * "FILE: not WHAT: CONTENT (expected: EXPECTED)", and when the file is DER and {@code
   * convertWith} is given, the openssl command that makes it PEM ({@code "pkey"}, {@code "pkey
   * -pubin"}).
   */
  public static IOException notA(
      Path file, byte[] bytes, String what, String expected, String convertWith) {
    String convert =
        convertWith != null && isDer(bytes)
            ? "; openssl " + convertWith + " -inform DER -in " + file + " converts it"
            : "";
    return new IOException(
        file
            + ": not "
            + what
            + ": "
            + describe(bytes)
            + " (expected: "
            + expected
            + convert
            + ")");
  }
}
