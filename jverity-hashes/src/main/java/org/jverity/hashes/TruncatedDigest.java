package org.jverity.hashes;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The first bytes of another digest's output: a SHAKE at the length OpenSSL 3.0 gives it by default
 * (SHAKE128: 16 bytes, SHAKE256: 32), from the JDK's longer SHAKE (an extendable output is a prefix
 * of any longer one). Not thread-safe.
 */
final class TruncatedDigest extends MessageDigest {
  private final MessageDigest full;
  private final int length; // bytes kept

  TruncatedDigest(String name, MessageDigest full, int length) {
    super(name);
    if (length < 1 || length > full.getDigestLength()) {
      throw new IllegalArgumentException(
          "length: " + length + " (expected: 1 to " + full.getDigestLength() + ")");
    }
    this.full = full;
    this.length = length;
  }

  @Override
  protected int engineGetDigestLength() {
    return length;
  }

  @Override
  protected void engineUpdate(byte input) {
    full.update(input);
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    full.update(input, offset, len);
  }

  @Override
  protected void engineUpdate(ByteBuffer input) {
    full.update(input);
  }

  @Override
  protected byte[] engineDigest() {
    return Arrays.copyOf(full.digest(), length);
  }

  @Override
  protected int engineDigest(byte[] buf, int offset, int len) throws DigestException {
    if (len < length) {
      throw new DigestException("output: " + len + " bytes (expected: at least " + length + ")");
    }
    System.arraycopy(engineDigest(), 0, buf, offset, length);
    return length;
  }

  @Override
  protected void engineReset() {
    full.reset();
  }
}
