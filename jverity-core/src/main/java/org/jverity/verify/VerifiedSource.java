package org.jverity.verify;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Verified bytes at an offset: what a consumer of a verified image (the NBD server, the CLI, an
 * embedding program) reads from. No byte is returned unless the data block holding it verified
 * against the trusted root hash. Thread-safe: any number of threads may read at once.
 *
 * <p>Buffer ownership: the destination is written only while {@code read} runs; when it returns or
 * throws, nothing writes to it any more. When a read fails once started, every byte of the
 * destination range holds either verified data or zero: unverified bytes are never left where the
 * caller can see them, and neither are the bytes the caller had there before (what did not verify —
 * the blocks from a failing one on, the parts of a request an interrupt cancelled before they were
 * read — is zeroed). Bytes before the failing block (when the exception names one) are verified. A
 * read refused before it starts (its range is outside the image or the array, the source is closed
 * or has failed closed) does not touch the destination.
 */
public interface VerifiedSource {

  /** Bytes of verified data the image has. */
  long size();

  /**
   * Reads {@code length} verified bytes at {@code offset} into {@code dst[dstOffset...]}.
   *
   * @throws CorruptBlockException for the lowest block that did not verify
   * @throws FailedClosedException after a corruption in a fail-closed mode
   * @throws EOFException if the range ends past {@link #size()}
   * @throws SourceClosedException after close
   */
  void read(long offset, byte[] dst, int dstOffset, int length) throws IOException;

  /**
   * As {@link #read(long, byte[], int, int)}, at the I/O class {@code ioClass}: a source that
   * schedules its verification (inline or pooled) decides by it; others ignore it.
   */
  default void read(long offset, byte[] dst, int dstOffset, int length, IoClass ioClass)
      throws IOException {
    read(offset, dst, dstOffset, length);
  }

  /**
   * Bytes per data block: the unit that verifies or fails (and the size a client should read in).
   */
  int blockSize();

  /** Whether zero blocks are read as zeros without being read ({@code ignore_zero_blocks}). */
  default boolean ignoresZeroBlocks() {
    return false;
  }

  /**
   * Whether data block {@code block} is known, from its trusted digest, to read as zeros (or to
   * fail, never to read as other bytes): a server may report it as zero, and as a hole too when
   * {@link #ignoresZeroBlocks()}. False when the source cannot tell.
   *
   * @throws CorruptBlockException if a hash block on the block's path does not verify
   */
  default boolean isZeroBlock(long block) throws IOException {
    return false;
  }

  /** What the source has seen so far: corruptions, repairs, how reads were verified, its cache. */
  SourceStats stats();

  /**
   * Fills {@code dst} from its position to its limit with verified bytes at {@code offset};
   * advances its position.
   */
  default void read(long offset, ByteBuffer dst) throws IOException {
    int n = dst.remaining();
    Requests.checkRange(size(), offset, n); // before the copy is allocated
    if (dst.hasArray()) {
      read(offset, dst.array(), dst.arrayOffset() + dst.position(), n);
    } else {
      byte[] tmp = new byte[n]; // a direct buffer: a request-sized copy, freed with the request
      read(offset, tmp, 0, n);
      dst.duplicate().put(tmp);
    }
    dst.position(dst.position() + n);
  }

  /**
   * Convenience: a new array of {@code length} verified bytes at {@code offset}. The range is
   * checked before the array is allocated.
   *
   * @throws IllegalArgumentException if {@code length} is negative
   * @throws EOFException if the range is not inside the image
   */
  default byte[] read(long offset, int length) throws IOException {
    Requests.checkRange(size(), offset, length);
    byte[] out = new byte[length];
    read(offset, out, 0, length);
    return out;
  }
}
