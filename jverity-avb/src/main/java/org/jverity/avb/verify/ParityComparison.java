package org.jverity.avb.verify;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * A sink for the FEC encoder that writes nothing: each piece of parity it is handed is compared
 * with the bytes the image holds at the same offset, so re-encoding the FEC checks it in the
 * encoder's bounded memory. Thread-safe (the encoder writes from its threads).
 */
final class ParityComparison implements WritableDevice {
  private final BlockDevice image;
  private final AtomicLong firstDifference = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong differingBytes = new AtomicLong();

  ParityComparison(BlockDevice image) {
    this.image = image;
  }

  @Override
  public void writeFully(long offset, ByteBuffer src) throws IOException {
    int n = src.remaining();
    ByteBuffer stored = ByteBuffer.allocate(n);
    image.readFully(offset, stored);
    stored.flip();
    long differing = 0;
    long first = -1;
    for (int i = 0; i < n; i++) {
      if (src.get(src.position() + i) != stored.get(i)) {
        differing++;
        if (first < 0) {
          first = offset + i;
        }
      }
    }
    src.position(src.limit());
    if (differing > 0) {
      differingBytes.addAndGet(differing);
      long f = first;
      firstDifference.accumulateAndGet(f, Math::min);
    }
  }

  @Override
  public void flush() {}

  /** Bytes of parity that differ from the image's. */
  long differingBytes() {
    return differingBytes.get();
  }

  /** The image offset of the first differing byte; only when {@link #differingBytes} > 0. */
  long firstDifference() {
    return firstDifference.get();
  }

  @Override
  public String description() {
    return image.description() + " (FEC compared)";
  }

  @Override
  public long size() throws IOException {
    return image.size();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    image.readFully(offset, dst);
  }

  @Override
  public void close() {}
}
