package org.jverity.hash;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import org.jverity.format.HashAlgorithm;
import org.jverity.format.HashFormat;

/**
 * Hashes one block the dm-verity way: H(salt ‖ block) in format 1, H(block ‖ salt) in format 0.
 * Holds a reusable {@link MessageDigest}, so it is <b>not</b> thread-safe: one per thread.
 */
public final class BlockHasher {
  private final MessageDigest digest;
  private final byte[] salt;
  private final boolean saltFirst;
  private final int digestSize; // bytes

  public BlockHasher(HashAlgorithm algorithm, HashFormat format, byte[] salt) {
    this.digest = algorithm.newDigest();
    this.salt = salt.clone();
    this.saltFirst = format.saltFirst();
    this.digestSize = algorithm.digestSize();
  }

  public int digestSize() {
    return digestSize;
  }

  /** Writes the digest of {@code block[off, off+len)} to {@code out[outOff, outOff+digestSize)}. */
  public void hash(byte[] block, int off, int len, byte[] out, int outOff) {
    if (saltFirst) {
      digest.update(salt);
      digest.update(block, off, len);
    } else {
      digest.update(block, off, len);
      digest.update(salt);
    }
    try {
      digest.digest(out, outOff, digestSize);
    } catch (DigestException e) {
      throw new IllegalArgumentException("output too small for a digest at " + outOff, e);
    }
  }

  /**
   * Writes the digest of {@code block}'s remaining bytes to {@code out[outOff, outOff+digestSize)}
   * and consumes them. A direct buffer is hashed through the digest's small internal buffer, so a
   * block read straight from the kernel is copied once, into cache-resident memory.
   */
  public void hash(ByteBuffer block, byte[] out, int outOff) {
    if (saltFirst) {
      digest.update(salt);
      digest.update(block);
    } else {
      digest.update(block);
      digest.update(salt);
    }
    try {
      digest.digest(out, outOff, digestSize);
    } catch (DigestException e) {
      throw new IllegalArgumentException("output too small for a digest at " + outOff, e);
    }
  }

  /** The digest of {@code block[off, off+len)} as a new array. */
  public byte[] hash(byte[] block, int off, int len) {
    byte[] out = new byte[digestSize];
    hash(block, off, len, out, 0);
    return out;
  }
}
