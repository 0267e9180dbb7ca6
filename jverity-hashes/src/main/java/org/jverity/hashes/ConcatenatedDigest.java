package org.jverity.hashes;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;

/**
 * Two digests of the same input, one after the other: OpenSSL's {@code MD5-SHA1} (MD5 ‖ SHA-1, 36
 * bytes), which veritysetup takes as a hash. Not thread-safe.
 */
final class ConcatenatedDigest extends MessageDigest {
  private final MessageDigest first;
  private final MessageDigest second;

  ConcatenatedDigest(String name, MessageDigest first, MessageDigest second) {
    super(name);
    this.first = first;
    this.second = second;
  }

  @Override
  protected int engineGetDigestLength() {
    return first.getDigestLength() + second.getDigestLength();
  }

  @Override
  protected void engineUpdate(byte input) {
    first.update(input);
    second.update(input);
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    first.update(input, offset, len);
    second.update(input, offset, len);
  }

  @Override
  protected void engineUpdate(ByteBuffer input) {
    ByteBuffer again =
        input.duplicate(); // the first digest consumes input; the second reads a copy of its
    // position
    first.update(input);
    second.update(again);
  }

  @Override
  protected byte[] engineDigest() {
    byte[] out = new byte[engineGetDigestLength()];
    try {
      engineDigest(out, 0, out.length);
    } catch (DigestException e) {
      throw new IllegalStateException(e); // out has the exact length
    }
    return out;
  }

  @Override
  protected int engineDigest(byte[] buf, int offset, int len) throws DigestException {
    int n = engineGetDigestLength();
    if (len < n) {
      throw new DigestException("output: " + len + " bytes (expected: at least " + n + ")");
    }
    first.digest(buf, offset, first.getDigestLength());
    second.digest(buf, offset + first.getDigestLength(), second.getDigestLength());
    return n;
  }

  @Override
  protected void engineReset() {
    first.reset();
    second.reset();
  }
}
