package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;

/**
 * What a {@link VerifiedReader} does with a block that could not be read ({@link #deviceError}: an
 * I/O error, or a corruption under {@code error_as_corruption}) or did not match its trusted
 * digest, data or hash alike, in one pipeline: recheck (read the block again into a private buffer
 * and hash that: a torn read of a file being written is not tampering; a rechecked hash block
 * replaces the cached copy) → repair ({@link BlockRepairer}, FEC's seam; its output is verified
 * before use) → the {@link CorruptionMode} policy, applied in one place. Never on the inline path.
 * Thread-safe.
 */
final class Mismatches {
  private final MerkleLayout layout;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final CacheSpace space;
  private final BlockRepairer repairer;
  private final CorruptionPolicy policy;
  private final HashWork.Pool work;
  private final boolean errorAsCorruption; // ReaderOptions#errorAsCorruption
  private final LongAdder repaired = new LongAdder(); // blocks the repairer corrected

  Mismatches(
      MerkleLayout layout,
      BlockDevice data,
      BlockDevice hash,
      CacheSpace space,
      ReaderOptions options,
      CorruptionPolicy policy,
      HashWork.Pool work) {
    this.layout = layout;
    this.data = data;
    this.hash = hash;
    this.space = space;
    this.repairer = options.repairer();
    this.errorAsCorruption = options.errorAsCorruption();
    this.policy = policy;
    this.work = work;
  }

  /**
   * Whether an I/O error of a read's own path is a corruption (the kernel's {@code
   * restart_on_error} and {@code panic_on_error}): only under {@link
   * ReaderOptions#errorAsCorruption()}, and never an interrupt, a device closed under the read or a
   * read of a closed reader ({@code readerClosed}) (as the kernel leaves out shutdown), nor our own
   * verdicts. Prefetches never get here: they are hints, whose errors the real read meets again.
   */
  boolean countsAsCorruption(IOException e, boolean readerClosed) {
    return errorAsCorruption
        && !readerClosed
        && !(e instanceof InterruptedIOException)
        && !(e instanceof ClosedChannelException)
        && !(e instanceof CorruptBlockException)
        && !(e instanceof FailedClosedException)
        && !(e instanceof SourceClosedException);
  }

  /**
   * {@code e}, an I/O error of {@code device} reading {@code block} (of {@code area}, at tree level
   * {@code level}, on data block {@code dataBlock}'s path), as the read reports it: an I/O error,
   * or when it {@link #countsAsCorruption counts as corruption} the policy's ruling on it (which
   * throws: error_as_corruption needs a fail-closed mode).
   */
  IOException deviceError(
      IOException e,
      boolean readerClosed,
      BlockDevice device,
      Area area,
      long block,
      int level,
      long dataBlock)
      throws CorruptBlockException {
    if (countsAsCorruption(e, readerClosed)) {
      policy.handle(
          CorruptBlockException.unreadable(device.description(), area, block, level, dataBlock, e));
    }
    return e;
  }

  /** Blocks the repairer corrected (and that then verified). */
  long repaired() {
    return repaired.sum();
  }

  /**
   * A data block's: on return {@code w.digest} matches {@code want} and {@code buf} holds the good
   * bytes, or (IGNORE) it does not and {@code buf} holds the bytes as read.
   */
  void data(long block, byte[] buf, int off, byte[] want, int at, HashWork w) throws IOException {
    int blockSize = layout.dataBlockSize();
    byte[] fresh = new byte[blockSize];
    long start = block * blockSize;
    int n = (int) Math.min(blockSize, layout.dataSize() - start);
    IOException recheckFailed = null;
    try {
      data.reread(start, fresh, 0, n); // past the device's own cache: a remote origin, again
      w.hasher.hash(fresh, 0, blockSize, w.digest, 0);
      if (matches(w.digest, want, at)) {
        System.arraycopy(fresh, 0, buf, off, blockSize); // the first read was torn, not the data
        return;
      }
    } catch (IOException e) {
      recheckFailed = e; // the mismatch stands: not rechecked is not good
    }
    Repair fix = repair(Area.DATA, block, -1, blockSize, want, at);
    if (fix.copy() != null) {
      w.hasher.hash(fix.copy(), 0, blockSize, w.digest, 0); // our copy: what we hash we return
      if (matches(w.digest, want, at)) {
        System.arraycopy(fix.copy(), 0, buf, off, blockSize);
        repaired.increment();
        return;
      }
    }
    w.hasher.hash(buf, off, blockSize, w.digest, 0); // (IGNORE) the digest of what is returned
    policy.handle(
        withFailures(
            new CorruptBlockException(data.description(), Area.DATA, block, -1),
            recheckFailed,
            fix.failure()));
  }

  /**
   * A hash block's: recheck (a fresh read replaces the cached copy), repair, then policy (the bad
   * copy leaves the cache). Returns the block to walk on with: a good, verified one, or (IGNORE)
   * the unverified one, as the kernel's logging mode does.
   */
  HashBlock hash(HashBlock hb, int level, byte[] want, int at, HashWork w, long dataBlock)
      throws IOException {
    IOException recheckFailed = null;
    try {
      byte[] fresh = space.read(hb.index, hash);
      if (hashBlockVerifies(fresh, level, hb.index, want, at, w.hasher, w.digest)) {
        return space.install(hb.index, fresh, true);
      }
    } catch (IOException e) {
      recheckFailed = e; // the mismatch stands: not rechecked is not good
    }
    Repair fix = repair(Area.HASH, hb.index, level, layout.hashBlockSize(), want, at);
    if (fix.copy() != null) {
      // our copy: what we cache we verified
      if (hashBlockVerifies(fix.copy(), level, hb.index, want, at, w.hasher, w.digest)) {
        repaired.increment();
        return space.install(hb.index, fix.copy(), true); // the cache keeps the corrected copy
      }
    }
    space.invalidate(hb);
    policy.handle(
        withFailures(
            new CorruptBlockException(hash.description(), Area.HASH, hb.index, level, dataBlock),
            recheckFailed,
            fix.failure()));
    return hb;
  }

  /**
   * What the repairer made of a block: our own copy of its candidate (right-sized, not yet
   * verified), or null; and the exception it threw, if any.
   */
  private record Repair(byte[] copy, Exception failure) {}

  /**
   * Asks the {@link BlockRepairer} for block {@code block} of {@code area} (a hash block's at tree
   * level {@code level}, which must also have the format's padding), whose trusted digest is {@code
   * want[at...]}. Whatever the repairer does, the mismatch still reaches the policy: an exception
   * it throws (an {@link IOException} or any {@link RuntimeException}: a decoder bug on crafted
   * parity) means "not repaired", and what it returns is copied before anything checks it, so that
   * a repairer keeping a reference to its array cannot change bytes once they verified. The check
   * it is given hashes with a hasher of its own: it may be called from any thread, and never throws
   * (a candidate of the wrong size does not verify).
   */
  private Repair repair(Area area, long block, int level, int size, byte[] want, int at) {
    BlockHasher checking = work.hasher();
    byte[] digest = new byte[layout.digestSize()];
    BlockRepairer.BlockCheck check =
        candidate -> {
          if (candidate == null || candidate.length != size) {
            return false;
          }
          synchronized (digest) {
            if (area == Area.HASH) {
              return hashBlockVerifies(candidate, level, block, want, at, checking, digest);
            }
            checking.hash(candidate, 0, size, digest, 0);
            return matches(digest, want, at);
          }
        };
    try {
      byte[] out = repairer.repair(area, block, size, check);
      return new Repair(out == null || out.length != size ? null : out.clone(), null);
    } catch (IOException | RuntimeException e) {
      return new Repair(null, e);
    }
  }

  /** {@code e} with the failures that left the mismatch standing (a recheck, a repair) attached. */
  private static CorruptBlockException withFailures(
      CorruptBlockException e, Exception... failures) {
    for (Exception f : failures) {
      if (f != null) {
        e.addSuppressed(f);
      }
    }
    return e;
  }

  /**
   * Whether {@code bytes}, hash block {@code index} of {@code level}, may be marked verified: it
   * hashes to its trusted digest {@code want[at...]} and has the padding the format writes ({@link
   * MerkleLayout#hasZeroPadding}). Asked once per block, when it becomes verified, never on a
   * verified block's later reads; a block failing either is a corruption of that hash block.
   */
  boolean hashBlockVerifies(
      byte[] bytes, int level, long index, byte[] want, int at, BlockHasher hasher, byte[] digest) {
    // A run of one, so the native loop hashes it where it runs: the JDK's digest is as fast only
    // once C2 has compiled it to its intrinsic, and the one-shot commands run C1 alone
    // (bin/jvm-options.sh), under which a 2 GiB read spent 0.3 s of CPU on its 16 MiB of hash
    // blocks. (A data block read alone stays with the JDK: the server's 4 KiB reads, under C2.)
    hasher.hashBlocks(bytes, 0, bytes.length, 1, digest, 0, hasher.digestSize());
    return hashBlockMatches(bytes, level, index, digest, want, at);
  }

  /** As {@link #hashBlockVerifies}, its digest {@code digest} already computed. */
  boolean hashBlockMatches(
      byte[] bytes, int level, long index, byte[] digest, byte[] want, int at) {
    return matches(digest, want, at) && layout.hasZeroPadding(level, index, bytes, 0);
  }

  /** Whether {@code digest} is the digest at {@code in[at...]}. */
  boolean matches(byte[] digest, byte[] in, int at) {
    return matches(digest, 0, in, at);
  }

  /** Whether the digest at {@code digests[from...]} is the digest at {@code in[at...]}. */
  boolean matches(byte[] digests, int from, byte[] in, int at) {
    int d = layout.digestSize();
    return Arrays.equals(digests, from, from + d, in, at, at + d);
  }
}
