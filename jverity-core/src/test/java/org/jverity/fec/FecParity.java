package org.jverity.fec;

import java.util.Arrays;

/**
 * Encodes a layout's parity the way veritysetup does ({@code verity_fec.c}): for each round, the
 * round's message blocks fed row by row (zeros past T), every byte position at once, the parity of
 * byte b at {@code (r·B + b)·roots}. A test helper, independent of the corrector.
 */
final class FecParity {
  private FecParity() {}

  /**
   * The parity area ({@link FecLayout#paritySize()} bytes, from {@code fecOffset}) for {@code data}
   * (the data device) and {@code hashDevice} (the whole hash device).
   */
  static byte[] encode(FecLayout l, byte[] data, byte[] hashDevice) {
    int bs = l.blockSize();
    var enc = new ReedSolomon(l.roots()).new Interleaved(bs);
    byte[] out = new byte[Math.toIntExact(l.paritySize())];
    byte[] block = new byte[bs];
    for (long r = 0; r < l.rounds(); r++) {
      enc.reset();
      for (int i = 0; i < l.messageLength(); i++) {
        long m = l.messageIndex(r, i);
        if (m >= l.messageBlocks()) {
          enc.feedZeros();
          continue;
        }
        byte[] from = l.isData(m) ? data : hashDevice;
        long at = (l.isData(m) ? m : l.hashBlockOf(m)) * bs;
        Arrays.fill(block, (byte) 0);
        if (at < from.length) {
          System.arraycopy(from, (int) at, block, 0, (int) Math.min(bs, from.length - at));
        }
        enc.feed(block, 0);
      }
      enc.parity(out, Math.toIntExact(l.parityOffset(r) - l.fecOffset()));
    }
    return out;
  }
}
