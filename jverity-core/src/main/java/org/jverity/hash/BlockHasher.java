package org.jverity.hash;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Hashes one block with a salt placed before or after it: H(salt ‖ block) or H(block ‖ salt). The
 * salt and its placement are independent of any on-disk format: dm-verity's format decides the
 * placement (its {@code VerityParams.blockHasher()} picks {@link #saltBefore} or {@link
 * #saltAfter}), and {@link #fsVerity} pads the salt as fs-verity does (and puts it first). Each
 * placement is named by its factory, not by a value a caller passes. Holds a reusable {@link
 * MessageDigest}, so it is <b>not</b> thread-safe: one per thread.
 *
 * <p>A run of blocks ({@link #hashBlocks}) goes to the native loop when it is loaded and tested for
 * the algorithm ({@code NativeHashing}), else through the same Java code as one block: the digests
 * are the same either way.
 */
public final class BlockHasher {
  private final HashAlgorithm algorithm;
  private MessageDigest digest; // the JDK's, made on first use: a native run needs none
  private final byte[] salt; // as hashed, padding included
  private final boolean saltFirst; // H(salt ‖ block); else H(block ‖ salt)
  private final int digestSize; // bytes
  private final boolean javaOnly; // never the native loop
  private int nativeCode = UNRESOLVED; // the native loop's algorithm code, or JAVA

  private static final int UNRESOLVED = -2;
  private static final int JAVA = -1;

  private BlockHasher(HashAlgorithm algorithm, byte[] salt, boolean saltFirst, boolean javaOnly) {
    this.algorithm = algorithm;
    this.salt = salt.clone();
    this.saltFirst = saltFirst;
    this.digestSize = algorithm.digestSize();
    this.javaOnly = javaOnly;
  }

  private BlockHasher(HashAlgorithm algorithm, byte[] salt, boolean saltFirst) {
    this(algorithm, salt, saltFirst, false);
  }

  /** H(salt ‖ block), the salt as given: dm-verity format 1. */
  public static BlockHasher saltBefore(HashAlgorithm algorithm, byte[] salt) {
    return new BlockHasher(algorithm, salt, true);
  }

  /** H(block ‖ salt), the salt as given: dm-verity format 0 (Chrome OS). */
  public static BlockHasher saltAfter(HashAlgorithm algorithm, byte[] salt) {
    return new BlockHasher(algorithm, salt, false);
  }

  /**
   * fs-verity's hashing: the salt zero-padded to a multiple of the hash's input block size (64
   * bytes for SHA-256, 128 for SHA-512), before the block; no salt hashes the block alone.
   */
  public static BlockHasher fsVerity(HashAlgorithm algorithm, byte[] salt) {
    int unit = algorithm.inputBlockSize();
    byte[] padded =
        salt.length == 0 ? salt : Arrays.copyOf(salt, Math.ceilDiv(salt.length, unit) * unit);
    return new BlockHasher(algorithm, padded, true);
  }

  /** A hasher with the same algorithm, salt and placement (for another thread). */
  public BlockHasher copy() {
    return new BlockHasher(algorithm, salt, saltFirst, javaOnly);
  }

  /**
   * The same hasher with every run hashed in Java, never by the native loop (to compare the two,
   * and for callers that want no native code).
   */
  public BlockHasher inJava() {
    return new BlockHasher(algorithm, salt, saltFirst, true);
  }

  /**
   * One line on which path runs of blocks took in this process, for {@code --debug}; empty when
   * none was hashed.
   */
  public static Optional<String> bulkHashingNote() {
    return NativeHashing.note();
  }

  /**
   * How many pairs of SHA-256 blocks this process has hashed two at a time (two streams, SHA-NI); 0
   * where that path is absent. {@code --debug} reports it, and the tests tell by it that a path
   * used the two streams.
   */
  public static long sha256PairsHashed() {
    return NativeHashing.sha256PairsHashed();
  }

  /**
   * Names everything that decides a digest: algorithm, salt as hashed (hex) and its placement; two
   * hashers with the same description hash every block alike.
   */
  public String describe() {
    StringBuilder b =
        new StringBuilder(algorithm.kernelName())
            .append(saltFirst ? ":salt-before:" : ":salt-after:");
    for (byte x : salt) {
      b.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
    }
    return b.toString();
  }

  public HashAlgorithm algorithm() {
    return algorithm;
  }

  public int digestSize() {
    return digestSize;
  }

  /** Writes the digest of {@code block[off, off+len)} to {@code out[outOff, outOff+digestSize)}. */
  public void hash(byte[] block, int off, int len, byte[] out, int outOff) {
    MessageDigest digest = digest();
    try {
      if (saltFirst) {
        digest.update(salt);
        digest.update(block, off, len);
      } else {
        digest.update(block, off, len);
        digest.update(salt);
      }
      finish(out, outOff);
    } catch (RuntimeException | Error e) {
      digest.reset(); // half a block hashed must not begin the next block's digest
      throw e;
    }
  }

  /**
   * Writes the digest of {@code block}'s remaining bytes to {@code out[outOff, outOff+digestSize)}
   * and consumes them. A direct buffer is hashed through the digest's small internal buffer, so a
   * block read straight from the kernel is copied once, into cache-resident memory.
   */
  public void hash(ByteBuffer block, byte[] out, int outOff) {
    MessageDigest digest = digest();
    try {
      if (saltFirst) {
        digest.update(salt);
        digest.update(block);
      } else {
        digest.update(block);
        digest.update(salt);
      }
      finish(out, outOff);
    } catch (RuntimeException | Error e) {
      digest.reset(); // a mapped file that shrank fails mid-block: the next digest starts clean
      throw e;
    }
  }

  /**
   * Hashes {@code count} consecutive blocks of {@code blockSize} bytes from {@code blocks[off]} on,
   * writing block {@code i}'s digest to {@code out[outOff + i * stride]}: a level's run of digests
   * in one call, so that a bulk pass (a tree's build or check) can hand the whole run to a native
   * loop at once.
   */
  public void hashBlocks(
      byte[] blocks, int off, int blockSize, int count, byte[] out, int outOff, int stride) {
    checkRun(blocks.length, off, blockSize, count, out, outOff, stride);
    if (runsNatively() && count > 0) {
      NativeHashing.hashBlocks(
          nativeCode, salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride);
      return;
    }
    for (int i = 0; i < count; i++) {
      hash(blocks, off + i * blockSize, blockSize, out, outOff + i * stride);
    }
  }

  /**
   * As {@link #hashBlocks(byte[], int, int, int, byte[], int, int)}, the blocks in {@code blocks}
   * from its index {@code off} on, indexed as {@link ByteBuffer#get(int)} indexes it: the run lies
   * between 0 and its limit, or is refused with {@link IndexOutOfBoundsException} (a slice's
   * backing array or memory around it is never read). Its position and limit are left alone. A
   * direct buffer is what the native loop reads best: a file read into it is copied once, and
   * hashed where it lies.
   */
  public void hashBlocks(
      ByteBuffer blocks, int off, int blockSize, int count, byte[] out, int outOff, int stride) {
    checkRun(blocks.limit(), off, blockSize, count, out, outOff, stride);
    if (count == 0) {
      return;
    }
    if (blocks.hasArray()) {
      hashBlocks(blocks.array(), blocks.arrayOffset() + off, blockSize, count, out, outOff, stride);
      return;
    }
    if (runsNatively() && nativelyReadable(blocks)) {
      NativeHashing.hashBlocks(
          nativeCode, salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride);
      return;
    }
    for (int i = 0; i < count; i++) {
      hash(blocks.slice(off + i * blockSize, blockSize), out, outOff + i * stride);
    }
  }

  /**
   * Writes the digests of two blocks of {@code len} bytes that lie apart, {@code a[aOff...]} and
   * {@code b[bOff...]}, to {@code out[outA...]} and {@code out[outB...]}: together, two streams,
   * where SHA-256 runs natively two at a time (a cold verified read's hash block and data block,
   * both at hand); else one after the other.
   */
  public void hashTwo(
      byte[] a, int aOff, byte[] b, int bOff, int len, byte[] out, int outA, int outB) {
    Objects.checkFromIndexSize(aOff, len, a.length);
    Objects.checkFromIndexSize(bOff, len, b.length);
    Objects.checkFromIndexSize(outA, digestSize, out.length);
    Objects.checkFromIndexSize(outB, digestSize, out.length);
    if (len > 0
        && algorithm.equals(HashAlgorithm.SHA256)
        && runsNatively()
        && NativeHashing.sha256TwoStreams()) {
      NativeHashing.hashTwo(salt, saltFirst, a, aOff, b, bOff, len, out, outA, outB);
      return;
    }
    hash(a, aOff, len, out, outA);
    hash(b, bOff, len, out, outB);
  }

  /**
   * Whether the native loop may read {@code blocks} in place: direct memory the JVM allocated. A
   * read-only heap buffer has no address, and a mapped file can shrink under its mapping, a fault
   * that would end the JVM in native code, where the JDK's own reads turn it into an error.
   */
  private static boolean nativelyReadable(ByteBuffer blocks) {
    return blocks.isDirect() && !MemorySegment.ofBuffer(blocks).isMapped();
  }

  /**
   * Whether runs of blocks go to the native loop (loaded, self-tested for this algorithm, this salt
   * not too long): a caller then reads its blocks into a direct buffer.
   */
  public boolean runsNatively() {
    if (nativeCode == UNRESOLVED) {
      nativeCode = javaOnly ? JAVA : NativeHashing.codeFor(algorithm, salt).orElse(JAVA);
    }
    return nativeCode != JAVA;
  }

  private void checkRun(
      int blocks, int off, int blockSize, int count, byte[] out, int outOff, int stride) {
    if (count < 0 || blockSize <= 0 || stride < digestSize) {
      throw new IllegalArgumentException(
          "run of " + count + " blocks of " + blockSize + " bytes, digests " + stride + " apart");
    }
    if (count == 0) {
      return;
    }
    Objects.checkFromIndexSize((long) off, (long) blockSize * count, blocks);
    Objects.checkFromIndexSize(outOff, (long) stride * (count - 1) + digestSize, out.length);
  }

  /** The digest of {@code block[off, off+len)} as a new array. */
  public byte[] hash(byte[] block, int off, int len) {
    byte[] out = new byte[digestSize];
    hash(block, off, len, out, 0);
    return out;
  }

  /**
   * The JDK's digest, made on first use: starting the JDK's security providers costs a one-shot
   * command ~25 ms, and a tree hashed by the native loop needs none.
   */
  private MessageDigest digest() {
    if (digest == null) {
      digest = algorithm.newDigest();
    }
    return digest;
  }

  private void finish(byte[] out, int outOff) {
    try {
      digest.digest(out, outOff, digestSize);
    } catch (DigestException e) {
      throw new IllegalArgumentException("output too small for a digest at " + outOff, e);
    }
  }
}
