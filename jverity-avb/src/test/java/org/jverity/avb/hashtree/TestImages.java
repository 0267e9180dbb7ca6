package org.jverity.avb.hashtree;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;
import org.jverity.format.Hex;
import org.jverity.io.FileDevice;
import org.jverity.tree.ProgressListener;

/** Inputs and helpers shared by the hashtree tests. */
final class TestImages {
  private TestImages() {}

  /** avbtool's {@code generate_test_image} with start byte 0: byte i is {@code i & 0xff}. */
  static byte[] pattern(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) i;
    }
    return b;
  }

  /** Reproducible random bytes. */
  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  static Path write(Path dir, String name, byte[] content) throws IOException {
    return Files.write(dir.resolve(name), content);
  }

  /** Builds tree and FEC into {@code image} in place and returns the root digest. */
  static byte[] build(Path image, AvbTreeGeometry g, byte[] salt) throws IOException {
    try (FileDevice dev = FileDevice.openChannel(image, true)) {
      return AvbHashtree.build(dev, g, salt, 2, ProgressListener.NONE);
    }
  }

  static AvbTreeReport check(Path image, AvbTreeGeometry g, byte[] salt, byte[] root)
      throws IOException {
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      return AvbHashtree.check(dev, g, g.imageSize(), salt, root, 2, ProgressListener.NONE);
    }
  }

  static byte[] slice(Path file, long offset, long length) throws IOException {
    byte[] all = Files.readAllBytes(file);
    return Arrays.copyOfRange(all, (int) offset, (int) (offset + length));
  }

  static String sha256(byte[] b) {
    try {
      return Hex.format(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static void flipByte(Path file, long offset) throws IOException {
    byte[] all = Files.readAllBytes(file);
    all[(int) offset] ^= 0x5a;
    Files.write(file, all);
  }
}
