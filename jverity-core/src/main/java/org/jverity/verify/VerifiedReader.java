package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.internal.ConcurrentBitSet;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.tree.Area;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeRoot;

/**
 * Random-access reads of a data image in which no byte is returned unless its data block verified
 * against the trusted root hash, as dm-verity reads. Thread-safe: any number of threads may read at
 * once. Hash blocks come from an injected {@link HashBlockCache} shared with other images; a hash
 * block verified once is never hashed again while cached.
 *
 * <p>The walk is the kernel's: climb from level 0 until a cached, already-verified hash block (or
 * the root) is found, then descend, verifying and marking each hash block, and finally compare the
 * data block's digest. A hash block is marked verified only when it also has the format's padding
 * (zeros past its last digest: {@link MerkleLayout#hasZeroPadding}), as {@code veritysetup verify}
 * requires: a tree for more data than the parameters say hashes to the same root, and only its
 * padding tells. That check runs once per block, when it is marked, never on the hot path. Where
 * each digest sits is asked of the {@link MerkleLayout}, the same one the builder and checker use.
 *
 * <p>A mismatch, of a data or a hash block, goes through one pipeline: recheck (read the block
 * again into a private buffer and hash that: a torn read of a file being written is not tampering;
 * a rechecked hash block replaces the cached copy) → repair ({@link BlockRepairer}, FEC's seam; its
 * output is verified before use) → the {@link CorruptionMode} policy, applied in one place. The
 * inline attempt the scheduler makes never runs this pipeline.
 *
 * <p>Buffers: data is read straight into the caller's array and hashed there (edge blocks of an
 * unaligned request go through one block-sized buffer owned by the request); on any failure the
 * bytes that did not verify are zeroed before the read returns or throws. Per-request hashing state
 * comes from a small bounded pool, so memory follows the requests in flight, not the threads.
 */
public final class VerifiedReader implements VerifiedSource, AutoCloseable {
  private static final int RUN_BYTES = 256 << 10; // data read at once: stays in L2 until hashed

  private final VerityParams params; // null for trees that are not dm-verity's
  private final MerkleLayout layout;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final CacheSpace space;
  private final byte[] rootHash;
  private final ReaderOptions options;
  private final CorruptionPolicy policy;
  private final HashWork.Pool work;
  private final ConcurrentBitSet
      verifiedData; // check_at_most_once: set after a match only; or null
  private final byte[] zeroDigest; // the digest of a zero data block (block status asks for it)
  private final boolean ignoreZeroBlocks; // such blocks read as zeros without being read
  private final int blockSize; // data block size, bytes
  private final long size; // bytes of data
  private final LongAdder repaired = new LongAdder(); // blocks the repairer corrected
  private volatile boolean closed;

  private VerifiedReader(
      VerityParams params,
      MerkleLayout layout,
      BlockHasher hasher,
      BlockDevice data,
      BlockDevice hash,
      byte[] rootHash,
      HashBlockCache cache,
      ReaderOptions options) {
    this.params = params;
    this.layout = layout;
    this.data = data;
    this.hash = hash;
    this.rootHash = rootHash.clone();
    this.options = options;
    this.policy = new CorruptionPolicy(options.mode(), options.listener());
    this.blockSize = layout.dataBlockSize();
    this.size = layout.dataSize();
    this.work =
        new HashWork.Pool(
            hasher, layout.levels(), 2 * Runtime.getRuntime().availableProcessors() + 2);
    this.verifiedData =
        options.checkAtMostOnce() ? new ConcurrentBitSet(layout.dataBlocks()) : null;
    this.zeroDigest = hasher.copy().hash(new byte[blockSize], 0, blockSize);
    this.ignoreZeroBlocks = options.ignoreZeroBlocks();
    // Blocks are shared between readers of the same tree with the same root, never across roots.
    this.space = cache.open(SpaceKey.of(hash, layout, hasher, rootHash));
  }

  /**
   * Opens a dm-verity image after checking that the devices are large enough for the tree.
   *
   * @param cache the hash block cache, usually {@link HashBlockCache#shared()}
   * @throws DeviceTooSmallException if the data or hash device is shorter than the tree needs
   * @throws VerityParameterException if the root hash has the wrong length
   */
  public static VerifiedReader open(
      VerityParams params,
      BlockDevice data,
      BlockDevice hash,
      byte[] rootHash,
      HashBlockCache cache,
      ReaderOptions options)
      throws IOException {
    return open(
        params,
        MerkleLayout.dmVerity(params),
        params.blockHasher(),
        data,
        hash,
        rootHash,
        cache,
        options);
  }

  /**
   * Opens a reader of any Merkle tree: {@code layout} says where digests sit on {@code hash},
   * {@code hasher} how blocks are hashed (fs-verity's trees come this way).
   */
  public static VerifiedReader open(
      MerkleLayout layout,
      BlockHasher hasher,
      BlockDevice data,
      BlockDevice hash,
      byte[] rootHash,
      HashBlockCache cache,
      ReaderOptions options)
      throws IOException {
    return open(null, layout, hasher, data, hash, rootHash, cache, options);
  }

  private static VerifiedReader open(
      VerityParams params,
      MerkleLayout layout,
      BlockHasher hasher,
      BlockDevice data,
      BlockDevice hash,
      byte[] rootHash,
      HashBlockCache cache,
      ReaderOptions options)
      throws IOException {
    Objects.requireNonNull(rootHash, "rootHash");
    Objects.requireNonNull(cache, "cache");
    Objects.requireNonNull(options, "options");
    if (rootHash.length != layout.digestSize()) {
      throw new VerityParameterException(
          "root hash: "
              + rootHash.length
              + " bytes (expected: "
              + layout.digestSize()
              + " for "
              + hasher.algorithm()
              + ")");
    }
    TreeRoot.requireDevices(layout, data, "data", hash, TreeRoot.HASH_AREA);
    return new VerifiedReader(params, layout, hasher, data, hash, rootHash, cache, options);
  }

  @Override
  public long size() {
    return size;
  }

  /** The dm-verity parameters; null for a tree opened by layout. */
  public VerityParams params() {
    return params;
  }

  public MerkleLayout layout() {
    return layout;
  }

  public ReaderOptions options() {
    return options;
  }

  /** Names the data device. */
  public String description() {
    return data.description();
  }

  /**
   * 'V' while no corruption has been seen, 'C' after: the verity field of {@code dmsetup status}.
   */
  public char status() {
    return policy.count() == 0 ? 'V' : 'C';
  }

  /** Corruptions seen so far (every one, also under {@link CorruptionMode#IGNORE}). */
  public long corruptionCount() {
    return policy.count();
  }

  /**
   * Blocks the {@link BlockRepairer} corrected (and that then verified): not corruptions, as
   * dm-verity does not count what FEC corrected as one.
   */
  public long repairedCount() {
    return repaired.sum();
  }

  /** The first {@link Corruption#MAX_REPORTED} corruptions seen, in the order seen. */
  public List<CorruptBlockException> firstCorruptions() {
    return policy.first();
  }

  /** Whether the reader has failed closed (modes RESTART and PANIC): every read now fails. */
  public boolean failedClosed() {
    return policy.failedClosed();
  }

  /**
   * Reads {@code length} verified bytes at {@code offset} into {@code dst[dstOffset...]} on the
   * calling thread; any range, aligned or not. See {@link VerifiedSource#read} for what the
   * destination holds when it throws.
   */
  @Override
  public void read(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    Requests.checkRange(size, offset, dst, dstOffset, length);
    if (length > 0) {
      announce(offset, offset + length, length > RUN_BYTES);
    }
    readRange(offset, dst, dstOffset, length, false, NEVER);
  }

  private static final BooleanSupplier NEVER = () -> false;

  /** A read the scheduler runs as one piece of a request; stops when {@code cancelled} says so. */
  void readPiece(long offset, byte[] dst, int dstOffset, int length, BooleanSupplier cancelled)
      throws IOException {
    readRange(offset, dst, dstOffset, length, false, cancelled);
  }

  /**
   * The inline attempt: reads and verifies as {@link #read} does, but only while every hash block
   * needed is already cached and everything matches; it never reads the hash device and never runs
   * the mismatch pipeline. Returns how many bytes from {@code offset} are verified: all, or fewer
   * when it stopped at a block it could not verify this way (the bytes after are zeroed), so the
   * caller hands only the rest to a worker. The range must have been checked.
   */
  int tryReadInline(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    return readRange(offset, dst, dstOffset, length, true, NEVER);
  }

  private int readRange(
      long offset, byte[] dst, int dstOffset, int length, boolean inline, BooleanSupplier cancelled)
      throws IOException {
    if (closed) {
      throw new SourceClosedException(data.description());
    }
    policy.checkOpen(); // refused before any work: the destination is not touched
    long end = offset + length;
    long verifiedTo = offset; // dst holds verified bytes for [offset, verifiedTo)
    HashWork w = work.take();
    try {
      byte[] edge =
          null; // one block for unaligned edges and a short last block; owned by this request
      long wholeBlocks = size / blockSize; // blocks that lie wholly inside the data
      while (verifiedTo < end) {
        if (cancelled.getAsBoolean()) {
          throw new InterruptedIOException("read cancelled");
        }
        long pos = verifiedTo;
        long block = pos / blockSize;
        int at = (int) (dstOffset + pos - offset); // < dst.length
        if (pos % blockSize == 0 && end - pos >= blockSize && block < wholeBlocks) {
          // A run of whole blocks, read straight into the caller's array and hashed there.
          int n =
              (int)
                  Math.min(
                      Math.min((end - pos) / blockSize, wholeBlocks - block),
                      Math.max(1, RUN_BYTES / blockSize));
          try {
            data.readFully(pos, dst, at, n * blockSize);
          } catch (IOException e) {
            if (n == 1 || !countsAsCorruption(e)) {
              throw deviceError(e, data, Area.DATA, block, -1, block);
            }
            n = 1; // a corruption names its block: read the first alone (the rest come next)
            readData(pos, dst, at, blockSize, block);
          }
          for (int i = 0; i < n; i++) {
            if (!verifyDataBlock(block + i, dst, at + i * blockSize, w, inline)) {
              return (int) (verifiedTo - offset);
            }
            verifiedTo += blockSize;
          }
        } else {
          if (edge == null) {
            edge = new byte[blockSize];
          }
          readDataBlock(block, edge);
          if (!verifyDataBlock(block, edge, 0, w, inline)) {
            return (int) (verifiedTo - offset);
          }
          long blockStart = block * blockSize;
          long to = Math.min(end, blockStart + blockSize);
          System.arraycopy(edge, (int) (pos - blockStart), dst, at, (int) (to - pos));
          verifiedTo = to;
        }
      }
      return length;
    } finally {
      work.give(w);
      if (verifiedTo < end) { // nothing unverified stays where the caller can see it
        Arrays.fill(dst, (int) (dstOffset + verifiedTo - offset), dstOffset + length, (byte) 0);
      }
    }
  }

  /**
   * Tells the devices that {@code length} bytes at {@code offset} will be read soon: their data and
   * the hash blocks their paths lack start to arrive without waiting (from a slow origin, in
   * parallel with other such hints), so a caller with many reads to make asks for all of them
   * first. Never blocks, never fails; nothing happens over local devices.
   */
  public void prefetch(long offset, long length) {
    if (length > 0 && offset >= 0 && offset < size) {
      announce(offset, Math.min(size, offset + length), true);
    }
  }

  /**
   * Tells the devices what a read of {@code [offset, end)} will need before it waits for any of it:
   * its data ({@code withData}: when it is read in more than one go, as runs or as the scheduler's
   * parallel pieces, which would otherwise each fetch their own), and the hash blocks its paths
   * lack (below the lowest level that is cached), so a device with a slow origin fetches a data
   * block and its hash blocks in parallel, in as few ranges as the read allows, not one round trip
   * after another. Local devices ignore the hints; the cache is only looked at.
   */
  void announce(long offset, long end, boolean withData) {
    if (withData) {
      data.prefetch(offset, end - offset);
    }
    long first = offset / blockSize;
    long last = (end - 1) / blockSize;
    int hashBlockSize = layout.hashBlockSize();
    for (int i = 0; i < layout.levels(); i++) {
      long a = layout.hashBlockOnPath(i, first);
      long b = layout.hashBlockOnPath(i, last);
      if (space.containsOrLoading(a) && space.containsOrLoading(b)) {
        return; // this level is cached, and so is every level above it that a walk needs
      }
      hash.prefetch(a * hashBlockSize, (b - a + 1) * hashBlockSize);
    }
  }

  /**
   * Reads data block {@code block} into {@code buf[0, blockSize)}, zero-padding past the end of the
   * data.
   */
  private void readDataBlock(long block, byte[] buf) throws IOException {
    long start = block * blockSize;
    int n = (int) Math.min(blockSize, size - start);
    readData(start, buf, 0, n, block);
    Arrays.fill(buf, n, blockSize, (byte) 0);
  }

  /** Reads data for a verified read: its device's errors are {@link #deviceError}s. */
  private void readData(long pos, byte[] buf, int off, int len, long block) throws IOException {
    try {
      data.readFully(pos, buf, off, len);
    } catch (IOException e) {
      throw deviceError(e, data, Area.DATA, block, -1, block);
    }
  }

  /**
   * Whether an I/O error of a read's own path is a corruption (the kernel's {@code
   * restart_on_error} and {@code panic_on_error}): only under {@link
   * ReaderOptions#errorAsCorruption()}, and never an interrupt, a device closed under the read or a
   * read of a closed reader (as the kernel leaves out shutdown), nor our own verdicts. Prefetches
   * never get here: they are hints, whose errors the real read meets again.
   */
  private boolean countsAsCorruption(IOException e) {
    return options.errorAsCorruption()
        && !closed
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
  private IOException deviceError(
      IOException e, BlockDevice device, Area area, long block, int level, long dataBlock)
      throws CorruptBlockException {
    if (countsAsCorruption(e)) {
      policy.handle(
          CorruptBlockException.unreadable(device.description(), area, block, level, dataBlock, e));
    }
    return e;
  }

  /**
   * Verifies data block {@code block} held in {@code buf[off, off + blockSize)}; may replace its
   * bytes (recheck, repair, zero block). Returns false, inline, when it cannot decide without I/O
   * or without the mismatch pipeline; otherwise true or throws.
   */
  private boolean verifyDataBlock(long block, byte[] buf, int off, HashWork w, boolean inline)
      throws IOException {
    if (verifiedData != null && verifiedData.get(block)) {
      return true;
    }
    byte[] want;
    int at;
    if (layout.levels() == 0) {
      want = rootHash;
      at = 0;
    } else {
      HashBlock level0 = verifiedPath(block, w, inline);
      if (level0 == null) {
        return false; // a hash block on the path is not cached (or did not match, inline)
      }
      want = level0.bytes;
      at = layout.offsetOnPath(0, block);
    }
    if (ignoreZeroBlocks && matches(zeroDigest, want, at)) {
      // ignore_zero_blocks: zeros, whatever the device holds. Not marked checked: nothing matched.
      Arrays.fill(buf, off, off + blockSize, (byte) 0);
      return true;
    }
    w.hasher.hash(buf, off, blockSize, w.digest, 0);
    if (!matches(w.digest, want, at)) {
      if (inline) {
        return false; // recheck, repair and the policy run on the full path only
      }
      dataMismatch(
          block, buf, off, want, at, w); // returns with good bytes in buf, or as read (IGNORE)
      if (!matches(w.digest, want, at)) {
        return true; // IGNORE: returned as read, never marked checked
      }
    }
    if (verifiedData != null) {
      verifiedData.set(block); // only after a match, as the kernel does
    }
    return true;
  }

  /**
   * The mismatch pipeline for a data block: recheck, repair, policy. On return {@code w.digest}
   * matches {@code want} and {@code buf} holds the good bytes, or (IGNORE) it does not and {@code
   * buf} holds the bytes as read.
   */
  private void dataMismatch(long block, byte[] buf, int off, byte[] want, int at, HashWork w)
      throws IOException {
    byte[] fresh = new byte[blockSize];
    long start = block * blockSize;
    int n = (int) Math.min(blockSize, size - start);
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
      byte[] out = options.repairer().repair(area, block, size, check);
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
   * The level-0 hash block covering data block {@code block}, verified: climbs to the lowest
   * verified block on the path (or the root), then verifies and marks the blocks below it. Inline,
   * null when a block on the path is not cached or does not match (those verified so far stay
   * marked).
   */
  private HashBlock verifiedPath(long block, HashWork w, boolean inline) throws IOException {
    int levels = layout.levels();
    HashBlock[] path = w.path; // entries above this walk's top are stale and never read
    int top = levels; // the lowest level whose path block is verified; levels = none (the root)
    for (int i = 0; i < levels; i++) {
      HashBlock hb = space.get(layout.hashBlockOnPath(i, block));
      path[i] = hb;
      if (hb != null && hb.verified()) {
        top = i;
        break;
      }
    }
    for (int i = top - 1; i >= 0; i--) {
      HashBlock hb = path[i];
      if (hb == null) {
        if (inline) {
          return null;
        }
        long index = layout.hashBlockOnPath(i, block);
        try {
          hb = path[i] = space.load(index, hash);
        } catch (IOException e) {
          throw deviceError(e, hash, Area.HASH, index, i, block);
        }
      }
      if (!hb.verified()) {
        byte[] want = i == levels - 1 ? rootHash : path[i + 1].bytes;
        int at = i == levels - 1 ? 0 : layout.offsetOnPath(i + 1, block);
        if (hashBlockVerifies(hb.bytes, i, hb.index, want, at, w.hasher, w.digest)) {
          hb.markVerified();
        } else if (inline) {
          return null;
        } else {
          path[i] = hashMismatch(hb, i, want, at, w, block);
        }
      }
    }
    return path[0]; // the path is cleared when the request gives its HashWork back
  }

  /**
   * The mismatch pipeline for a hash block: recheck (a fresh read replaces the cached copy),
   * repair, then policy (the bad copy leaves the cache). Returns the block to walk on with: a good,
   * verified one, or (IGNORE) the unverified one, as the kernel's logging mode does.
   */
  private HashBlock hashMismatch(
      HashBlock hb, int level, byte[] want, int at, HashWork w, long dataBlock) throws IOException {
    int size = layout.hashBlockSize();
    IOException recheckFailed = null;
    try {
      byte[] fresh = space.read(hb.index, hash);
      if (hashBlockVerifies(fresh, level, hb.index, want, at, w.hasher, w.digest)) {
        return space.install(hb.index, fresh, true);
      }
    } catch (IOException e) {
      recheckFailed = e; // the mismatch stands: not rechecked is not good
    }
    Repair fix = repair(Area.HASH, hb.index, level, size, want, at);
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
   * Whether {@code bytes}, hash block {@code index} of {@code level}, may be marked verified: it
   * hashes to its trusted digest {@code want[at...]} and has the padding the format writes ({@link
   * MerkleLayout#hasZeroPadding}). Asked once per block, when it becomes verified, never on a
   * verified block's later reads; a block failing either is a corruption of that hash block.
   */
  private boolean hashBlockVerifies(
      byte[] bytes, int level, long index, byte[] want, int at, BlockHasher hasher, byte[] digest) {
    hasher.hash(bytes, 0, bytes.length, digest, 0);
    return matches(digest, want, at) && layout.hasZeroPadding(level, index, bytes, 0);
  }

  private boolean matches(byte[] digest, byte[] in, int at) {
    int d = layout.digestSize();
    return Arrays.equals(digest, 0, d, in, at, at + d);
  }

  /** Whether zero blocks are read as zeros without being read ({@code ignore_zero_blocks}). */
  @Override
  public boolean ignoresZeroBlocks() {
    return ignoreZeroBlocks;
  }

  /**
   * Whether data block {@code block}'s trusted digest is the digest of a zero block: such a block
   * reads as zeros or fails, never as other bytes, so a server may report it as zero (and, under
   * {@code ignore_zero_blocks}, where it is not read at all, as a hole). The hash blocks on its
   * path are verified first, as for a read.
   *
   * @throws CorruptBlockException if a hash block on the path does not verify
   */
  @Override
  public boolean isZeroBlock(long block) throws IOException {
    Objects.checkIndex(block, layout.dataBlocks());
    if (closed) {
      throw new SourceClosedException(data.description());
    }
    policy.checkOpen();
    if (layout.levels() == 0) {
      return matches(zeroDigest, rootHash, 0);
    }
    HashWork w = work.take();
    try {
      HashBlock level0 = verifiedPath(block, w, false);
      return matches(zeroDigest, level0.bytes, layout.offsetOnPath(0, block));
    } finally {
      work.give(w);
    }
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  /** Its counters and its cache's; reads on the calling thread are neither inline nor pooled. */
  @Override
  public SourceStats stats() {
    return new SourceStats(
        corruptionCount(), repairedCount(), failedClosed(), 0, 0, 0, cacheStats());
  }

  /** The counters of the hash block cache this reader uses (shared with other images). */
  public CacheStats cacheStats() {
    return space.cache.stats();
  }

  /** This image's share of the hash block cache (for the prefetcher). */
  CacheSpace space() {
    return space;
  }

  /** The hash device this reader loads from (for the prefetcher). */
  BlockDevice hashDevice() {
    return hash;
  }

  /**
   * Stops reading: later reads throw {@link SourceClosedException}, and this reader's blocks leave
   * the cache once no other reader of the same image uses them. The devices stay open: they belong
   * to the caller.
   */
  @Override
  public void close() {
    if (!closed) {
      synchronized (this) {
        if (!closed) {
          closed = true;
          space.release();
        }
      }
    }
  }
}
