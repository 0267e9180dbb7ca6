package org.jverity.fec;

import java.io.IOException;
import java.util.SplittableRandom;
import org.jverity.io.BlockDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.TestImage;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * A test image with FEC on a device of its own: the image (whose arrays the test corrupts), its
 * layout, its parity, and a pristine copy to compare with.
 */
record FecImage(
    TestImage image, FecLayout layout, byte[] parity, byte[] pristineData, byte[] pristineHash) {

  static FecImage of(int blocks, int blockSize, int roots, long seed) throws IOException {
    TestImage im = TestImage.random(blocks, blockSize, seed);
    FecLayout l = FecLayout.of(im.params(), roots, 0, false, im.hash().length);
    return new FecImage(
        im, l, FecParity.encode(l, im.data(), im.hash()), im.data().clone(), im.hash().clone());
  }

  int blockSize() {
    return layout.blockSize();
  }

  /** The array and offset holding message block {@code m}. */
  byte[] arrayOf(long m) {
    return layout.isData(m) ? image.data() : image.hash();
  }

  int offsetOf(long m) {
    return (int) ((layout.isData(m) ? m : layout.hashBlockOf(m)) * blockSize());
  }

  /** Overwrites message block {@code m} with random bytes (every byte changes). */
  void corruptWhole(long m, SplittableRandom rnd) {
    byte[] a = arrayOf(m);
    int off = offsetOf(m);
    for (int i = 0; i < blockSize(); i++) {
      a[off + i] ^= (byte) (1 + rnd.nextInt(255));
    }
  }

  /** Flips {@code n} random bytes of message block {@code m} (n ≥ 1; at least one byte changes). */
  void corruptBytes(long m, int n, SplittableRandom rnd) {
    byte[] a = arrayOf(m);
    int off = offsetOf(m);
    for (int i = 0; i < n; i++) {
      a[off + rnd.nextInt(blockSize())] ^= (byte) (1 + rnd.nextInt(255));
    }
  }

  /** The pristine bytes of message block {@code m}. */
  byte[] original(long m) {
    byte[] a = layout.isData(m) ? pristineData : pristineHash;
    int off = offsetOf(m);
    return java.util.Arrays.copyOfRange(a, off, off + blockSize());
  }

  BlockDevice fecDevice() {
    return new MemoryDevice("fec", parity);
  }

  FecCorrector corrector() {
    return new FecCorrector(layout, image.dataDevice(), image.hashDevice(), fecDevice());
  }

  FecRepairer repairer() {
    return new FecRepairer(corrector());
  }

  VerifiedReader reader(FecRepairer repairer) throws IOException {
    return VerifiedReader.open(
        image.params(),
        image.dataDevice(),
        image.hashDevice(),
        image.root(),
        new HashBlockCache(1 << 20),
        ReaderOptions.DEFAULTS.withRepairer(repairer));
  }
}
