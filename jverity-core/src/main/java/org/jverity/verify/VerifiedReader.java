package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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
 * <p>The walk is the kernel's ({@link HashPath}): up a data block's path to a verified hash block
 * or the root, then down, verifying and marking each block, then the data block's digest. Where
 * each digest sits is asked of the {@link MerkleLayout}, the same one the builder and checker use.
 *
 * <p>A mismatch, of a data or a hash block, goes through one pipeline, {@link Mismatches}: recheck,
 * repair, then the {@link CorruptionMode} policy. The inline attempt the scheduler makes never runs
 * it.
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
  private final Mismatches mismatches; // recheck, repair, policy: never inline
  private final HashPath path; // the kernel's walk up and down a data block's path
  private final HashWork.Pool work;
  private final ConcurrentBitSet
      verifiedData; // check_at_most_once: set after a match only; or null
  private final byte[] zeroDigest; // the digest of a zero data block (block status asks for it)
  private final boolean ignoreZeroBlocks; // such blocks read as zeros without being read
  private final int blockSize; // data block size, bytes
  private final long size; // bytes of data
  private final Prefetcher hints; // device hints for reads on the calling thread; loads none
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
    this.mismatches = new Mismatches(layout, data, hash, space, options, policy, work);
    this.path = new HashPath(layout, hash, space, this.rootHash, mismatches);
    this.hints = new Prefetcher(this, 0);
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
    return mismatches.repaired();
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
      hints.announce(offset, offset + length, length > RUN_BYTES);
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
            if (n == 1 || !mismatches.countsAsCorruption(e, closed)) {
              throw mismatches.deviceError(e, closed, data, Area.DATA, block, -1, block);
            }
            n = 1; // a corruption names its block: read the first alone (the rest come next)
            readData(pos, dst, at, blockSize, block);
          }
          boolean all;
          try {
            all = verifyDataBlocks(block, n, dst, at, w, inline);
          } finally {
            verifiedTo += (long) w.verified * blockSize; // when it throws too: they stay
          }
          if (!all) {
            return (int) (verifiedTo - offset);
          }
        } else {
          if (edge == null) {
            edge = new byte[blockSize];
          }
          readDataBlock(block, edge);
          if (!verifyDataBlocks(block, 1, edge, 0, w, inline)) {
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
      hints.announce(offset, Math.min(size, offset + length), true);
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

  /** Reads data for a verified read: its device's errors are {@link Mismatches#deviceError}s. */
  private void readData(long pos, byte[] buf, int off, int len, long block) throws IOException {
    try {
      data.readFully(pos, buf, off, len);
    } catch (IOException e) {
      throw mismatches.deviceError(e, closed, data, Area.DATA, block, -1, block);
    }
  }

  /**
   * Verifies the {@code count} data blocks from {@code first} on, held in {@code buf} from {@code
   * off}; may replace a block's bytes (recheck, repair, zero block). Returns whether all did;
   * inline, false where it could not decide without I/O or without the mismatch pipeline; a
   * corruption the policy refuses throws. Either way {@code w.verified} says how many blocks from
   * {@code first} verified, so that a caller keeps them when a later one fails.
   *
   * <p>Blocks under one level-0 hash block are hashed together, in groups of up to {@link
   * HashWork#GROUP}, so the native loop takes them two at a time (two SHA-256 streams); each digest
   * is then compared on its own, in order, so a mismatch is its block's alone and the blocks before
   * it count as verified. A lone block is hashed by the JDK, as it always was: one stream, no
   * crossing into native code for a 4 KiB read.
   */
  private boolean verifyDataBlocks(
      long first, int count, byte[] buf, int off, HashWork w, boolean inline) throws IOException {
    w.verified = 0;
    while (w.verified < count) {
      int done = w.verified;
      long block = first + done;
      int blockOff = off + done * blockSize;
      if (verifiedData != null && verifiedData.get(block)) {
        w.verified++;
        continue;
      }
      byte[] want;
      long level0Index = -1; // the level-0 hash block holding the group's digests; -1: the root
      if (layout.levels() == 0) {
        want = rootHash;
      } else {
        HashBlock level0 = path.level0(block, w, inline, closed, buf, blockOff);
        if (level0 == null) {
          return false; // a hash block on the path is not cached (or did not match, inline)
        }
        want = level0.bytes;
        level0Index = level0.index;
      }
      if (ignoreZeroBlocks && mismatches.matches(zeroDigest, want, wantAt(block))) {
        // ignore_zero_blocks: zeros, whatever is stored. Not marked checked: nothing matched.
        Arrays.fill(buf, blockOff, blockOff + blockSize, (byte) 0);
        w.verified++;
        continue;
      }
      int group = 1;
      while (group < Math.min(count - done, HashWork.GROUP)
          && joinsGroup(block + group, level0Index, want)) {
        group++;
      }
      // The first may have been hashed with its level-0 hash block (a cold path): the rest then.
      int from = w.hashedWithPath == block ? 1 : 0;
      int ds = w.digest.length;
      if (group - from == 1) {
        w.hasher.hash(buf, blockOff + from * blockSize, blockSize, w.digests, from * ds);
      } else if (group - from > 1) {
        w.hasher.hashBlocks(
            buf, blockOff + from * blockSize, blockSize, group - from, w.digests, from * ds, ds);
      }
      for (int i = 0; i < group; i++) {
        if (!checkDigest(block + i, buf, blockOff + i * blockSize, i, want, w, inline)) {
          return false;
        }
        w.verified++;
      }
    }
    return true;
  }

  /**
   * Whether data block {@code block} can be hashed with the group before it: its digest is in the
   * same level-0 hash block, and it needs hashing (not verified before, not a zero block ignored).
   */
  private boolean joinsGroup(long block, long level0Index, byte[] want) {
    return level0Index >= 0
        && layout.hashBlockOnPath(0, block) == level0Index
        && (verifiedData == null || !verifiedData.get(block))
        && !(ignoreZeroBlocks && mismatches.matches(zeroDigest, want, wantAt(block)));
  }

  /**
   * Where data block {@code block}'s trusted digest sits in its level-0 hash block (or the root).
   */
  private int wantAt(long block) {
    return layout.levels() == 0 ? 0 : layout.offsetOnPath(0, block);
  }

  /**
   * Compares data block {@code block}'s digest, the {@code index}th in {@code w.digests}, with the
   * trusted one; a mismatch goes through the pipeline (never inline: false), which returns with
   * good bytes in {@code buf} or, under IGNORE, the bytes as read. True when the block may be
   * returned.
   */
  private boolean checkDigest(
      long block, byte[] buf, int off, int index, byte[] want, HashWork w, boolean inline)
      throws IOException {
    int at = wantAt(block);
    if (!mismatches.matches(w.digests, index * w.digest.length, want, at)) {
      if (inline) {
        return false; // recheck, repair and the policy run on the full path only
      }
      mismatches.data(
          block, buf, off, want, at, w); // returns with good bytes in buf, or as read (IGNORE)
      if (!mismatches.matches(w.digest, want, at)) {
        return true; // IGNORE: returned as read, never marked checked
      }
    }
    if (verifiedData != null) {
      verifiedData.set(block); // only after a match, as the kernel does
    }
    return true;
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
      return mismatches.matches(zeroDigest, rootHash, 0);
    }
    HashWork w = work.take();
    try {
      HashBlock level0 = path.level0(block, w, false, closed, null, 0);
      return mismatches.matches(zeroDigest, level0.bytes, layout.offsetOnPath(0, block));
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

  /** The data device this reader reads (for the prefetcher's hints). */
  BlockDevice dataDevice() {
    return data;
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
