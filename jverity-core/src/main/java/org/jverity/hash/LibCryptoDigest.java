package org.jverity.hash;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link MessageDigest} computed by the system's libcrypto (OpenSSL's {@code SHA256_Update} and
 * friends, what veritysetup itself hashes with), called through the FFM API.
 *
 * <p>Why: the JDK's SHA-2 runs at full speed only once the optimising compiler has compiled it,
 * 100–150 ms into a process, and hashes at a few hundred MB/s until then; libcrypto hashes the
 * first block at full speed (SHA-NI or AVX2, as the CPU allows). A long run gains nothing, since
 * both reach the same speed; a short command gains its warm-up.
 *
 * <p>The hash state is a plain {@code long[]} on the Java heap, handed to libcrypto by a critical
 * downcall: nothing to free, and {@link #clone()} is an array copy (a salted state is computed once
 * and copied per block). Not thread-safe, like every {@code MessageDigest}.
 */
final class LibCryptoDigest extends MessageDigest implements Cloneable {
  private final LibCrypto.Functions functions;
  private long[] state = new long[LibCrypto.STATE_LONGS];
  private final byte[] one = new byte[1]; // engineUpdate(byte)

  private LibCryptoDigest(String jcaName, LibCrypto.Functions functions) {
    super(jcaName);
    this.functions = functions;
    functions.init(state);
  }

  /**
   * A libcrypto digest of {@code algorithm}, or empty when there is no usable libcrypto (another
   * OS, no OpenSSL, an algorithm it lacks, or a self-test that disagreed with the JDK).
   */
  static Optional<MessageDigest> of(String jcaName, String opensslName, int digestSize) {
    return LibCrypto.functions(new LibCrypto.Algorithm(jcaName, opensslName, digestSize))
        .map(f -> new LibCryptoDigest(jcaName, f));
  }

  @Override
  protected int engineGetDigestLength() {
    return functions.digestSize();
  }

  @Override
  protected void engineUpdate(byte input) {
    one[0] = input;
    functions.update(state, one, 0, 1);
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    Objects.checkFromIndexSize(offset, len, input.length);
    functions.update(state, input, offset, len);
  }

  @Override
  protected void engineUpdate(ByteBuffer input) {
    int n = input.remaining();
    if (n == 0) {
      return;
    }
    if (input.hasArray()) {
      functions.update(state, input.array(), input.arrayOffset() + input.position(), n);
    } else if (MemorySegment.ofBuffer(input).isMapped()) {
      // A mapped file can shrink under its mapping: the JDK's copy turns that fault into an error,
      // where libcrypto reading it in place would end the JVM.
      super.engineUpdate(input);
      return;
    } else {
      functions.update(state, input); // direct: read in place, no copy
    }
    input.position(input.position() + n);
  }

  @Override
  protected byte[] engineDigest() {
    byte[] out = new byte[functions.digestSize()];
    functions.finish(state, out, 0);
    functions.init(state);
    return out;
  }

  @Override
  protected int engineDigest(byte[] buf, int offset, int len) throws DigestException {
    int size = functions.digestSize();
    if (len < size || offset < 0 || offset > buf.length - size) {
      throw new DigestException(
          "no room for " + size + " bytes at " + offset + " (length " + len + ")");
    }
    functions.finish(state, buf, offset);
    functions.init(state);
    return size;
  }

  @Override
  protected void engineReset() {
    functions.init(state);
  }

  @Override
  public Object clone() throws CloneNotSupportedException {
    LibCryptoDigest copy = (LibCryptoDigest) super.clone();
    copy.state = Arrays.copyOf(state, state.length);
    return copy;
  }
}
