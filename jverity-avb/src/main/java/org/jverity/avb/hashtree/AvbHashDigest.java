package org.jverity.avb.hashtree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.tree.ProgressListener;

/**
 * The digest of a hash descriptor ({@code add_hash_footer}): {@code H(salt ‖ image[0:size])}, the
 * image read in pieces of {@link #PIECE} bytes, so memory does not grow with the image.
 */
public final class AvbHashDigest {
  /** Bytes read at a time. */
  static final int PIECE = 1 << 20;

  private AvbHashDigest() {}

  /**
   * @param size bytes of the image hashed from its start (the descriptor's {@code image_size},
   *     unpadded)
   * @throws DeviceTooSmallException if the image is shorter than {@code size}
   */
  public static byte[] compute(BlockDevice image, long size, HashAlgorithm alg, byte[] salt)
      throws IOException {
    return compute(image, size, alg, salt, ProgressListener.NONE);
  }

  /** {@link #compute(BlockDevice, long, HashAlgorithm, byte[])}, told each piece hashed. */
  public static byte[] compute(
      BlockDevice image, long size, HashAlgorithm alg, byte[] salt, ProgressListener progress)
      throws IOException {
    if (size < 0) {
      throw new IllegalArgumentException("image size: " + size + " (expected: >= 0)");
    }
    if (image.size() < size) {
      throw new DeviceTooSmallException("image", image.description(), image.size(), size);
    }
    MessageDigest d = alg.newDigest();
    d.update(salt);
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(PIECE, Math.max(1, size)));
    for (long pos = 0; pos < size; ) {
      int n = (int) Math.min(buf.capacity(), size - pos);
      buf.clear().limit(n);
      image.readFully(pos, buf);
      buf.flip();
      d.update(buf);
      pos += n;
      progress.advanced(n);
    }
    return d.digest();
  }
}
