package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.AvbTestKeys;

/** Inputs as AOSP's avbtool tests make them, and the in-process jverity run. */
final class AvbCommandKit {
  private AvbCommandKit() {}

  static final String KEY_2048 = "testkey_rsa2048.pem";
  static final String KEY_4096 = "testkey_rsa4096.pem";

  /** avbtool's {@code generate_test_image}: byte i is {@code i & 0xff}. */
  static Path pattern(Path file, int size) throws IOException {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) i;
    }
    Files.write(file, b);
    return file;
  }

  static String key(String name) {
    return AvbTestKeys.path(name).toString();
  }

  static String sha256(Path file) throws IOException {
    return sha256(Files.readAllBytes(file));
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code jverity avb SUBCOMMAND args...}, in-process. */
  static ToolRun avb(String subcommand, Object... args) {
    List<String> all = new ArrayList<>(List.of("avb", subcommand));
    for (Object a : args) {
      all.add(a.toString());
    }
    return Jverity.run(all);
  }

  /** As {@link #avb}, which must succeed. */
  static ToolRun ok(String subcommand, Object... args) {
    ToolRun r = avb(subcommand, args);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return r;
  }

  /**
   * Writes {@code value} big-endian (4 bytes for an int, 8 for a long) at {@code at} in the first
   * descriptor of an unsigned image with a footer: a hostile descriptor, which info_image still
   * parses (nothing is signed).
   */
  static void patchDescriptor(Path img, int at, Number value) throws IOException {
    try (FileChannel ch =
        FileChannel.open(img, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer footer = ByteBuffer.allocate(64);
      ch.read(footer, ch.size() - 64);
      long vbmeta = footer.getLong(20);
      ByteBuffer header = ByteBuffer.allocate(256);
      ch.read(header, vbmeta);
      assertThat(header.getInt(28)).as("algorithm NONE").isZero();
      long descriptors = vbmeta + 256 + header.getLong(12) + header.getLong(96);
      ByteBuffer b =
          value instanceof Long l
              ? ByteBuffer.allocate(8).putLong(0, l)
              : ByteBuffer.allocate(4).putInt(0, value.intValue());
      ch.write(b, descriptors + at);
    }
  }

  static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
