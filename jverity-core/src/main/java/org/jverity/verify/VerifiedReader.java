package org.jverity.verify;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.tree.Area;
import org.jverity.tree.ConcurrentBitSet;
import org.jverity.tree.TreeGeometry;

/**
 * Random-access reads of a data image in which no byte is returned unless its data block verified
 * against the trusted root hash, as dm-verity reads. Thread-safe: any number of threads may read
 * at once; each thread hashes with its own digest, hash blocks are shared through a bounded
 * {@link HashBlockCache}, and a hash block verified once is never hashed again while cached.
 *
 * <p>The walk is the kernel's: climb from level 0 until a cached, already-verified hash block (or
 * the root) is found, then descend, verifying and marking each hash block, and finally compare
 * the data block's digest. A data block that does not match is read again into a private buffer
 * and re-hashed before it is declared corrupt (the kernel's recheck), so a torn read of a file
 * being written is not reported as tampering.
 *
 * <p>Corruption is handled by one policy ({@link CorruptionMode}), counted and reported as
 * {@code dmsetup status} does (V / C). This is the synchronous core of the read path;
 * scheduling and prefetch build on it.
 */
public final class VerifiedReader {
  /** Default size of the hash block cache, as the issue asks: 64 MiB. */
  public static final long DEFAULT_CACHE_BYTES = 64L << 20;
  private static final int MAX_READ_CHUNK = 1 << 20; // bytes of data read from the device at once

  private static final System.Logger LOG = System.getLogger(VerifiedReader.class.getName());
  /** Corruptions logged and kept one by one; the rest are only counted (the kernel's limit). */
  public static final int MAX_LOGGED = 100;

  private final VerityParams params;
  private final TreeGeometry geometry;
  private final BlockDevice data;
  private final String hashDescription; // names the hash device in corruption reports
  private final HashBlockCache cache;
  private final byte[] rootHash;
  private final ReaderOptions options;
  private final ThreadLocal<Scratch> scratch;
  private final ConcurrentBitSet verifiedData; // check_at_most_once: bits only ever set; or null
  private final byte[] zeroDigest; // ignore_zero_blocks: the digest of a zero data block; or null
  private final AtomicLong corruptions = new AtomicLong();
  private final List<CorruptBlockException> firstCorruptions = new ArrayList<>(); // guarded by itself
  private final AtomicReference<CorruptBlockException> failedClosed = new AtomicReference<>();

  private VerifiedReader(VerityParams params, BlockDevice data, BlockDevice hash, byte[] rootHash, ReaderOptions options) {
    this.params = params;
    this.geometry = TreeGeometry.of(params);
    this.data = data;
    this.hashDescription = hash.description();
    this.cache = new HashBlockCache(hash, params.hashBlockSize(), options.cacheBytes());
    this.rootHash = rootHash.clone();
    this.options = options;
    this.scratch = ThreadLocal.withInitial(() -> new Scratch(params));
    this.verifiedData = options.checkAtMostOnce() ? new ConcurrentBitSet(params.dataBlocks()) : null;
    this.zeroDigest = options.ignoreZeroBlocks()
        ? BlockHasher.dmVerity(params.hashAlgorithm(), params.hashFormat(), params.salt())
            .hash(new byte[params.dataBlockSize()], 0, params.dataBlockSize())
        : null;
  }

  /**
   * Opens a reader after checking that the devices are large enough for the tree.
   *
   * @param cacheBytes bound of the hash block cache
   * @throws DeviceTooSmallException if the data or hash device is shorter than the tree needs
   */
  public static VerifiedReader open(VerityParams params, BlockDevice data, BlockDevice hash, byte[] rootHash,
      long cacheBytes) throws IOException {
    return open(params, data, hash, rootHash, ReaderOptions.DEFAULTS.withCacheBytes(cacheBytes));
  }

  /**
   * Opens a reader with dm-verity's options (corruption mode, check_at_most_once,
   * ignore_zero_blocks) after checking that the devices are large enough for the tree.
   */
  public static VerifiedReader open(VerityParams params, BlockDevice data, BlockDevice hash, byte[] rootHash,
      ReaderOptions options) throws IOException {
    Objects.requireNonNull(rootHash, "rootHash");
    if (rootHash.length != params.hashAlgorithm().digestSize()) {
      throw new VerityParameterException("root hash: " + rootHash.length + " bytes (expected: "
          + params.hashAlgorithm().digestSize() + " for " + params.hashAlgorithm() + ")");
    }
    TreeGeometry g = TreeGeometry.of(params);
    if (data.size() < params.dataSize()) {
      throw new DeviceTooSmallException("data", data.description(), data.size(), params.dataSize());
    }
    long hashNeeded = g.levels() == 0 ? 0 : g.hashDeviceSize();
    if (hash.size() < hashNeeded) {
      throw new DeviceTooSmallException("hash area (truncated?)", hash.description(), hash.size(), hashNeeded);
    }
    return new VerifiedReader(params, data, hash, rootHash, options);
  }

  /** Bytes of verified data the image has. */
  public long size() {
    return params.dataSize();
  }

  public VerityParams params() {
    return params;
  }

  public TreeGeometry geometry() {
    return geometry;
  }

  public HashBlockCache cache() {
    return cache;
  }

  public ReaderOptions options() {
    return options;
  }

  /** 'V' while no corruption has been seen, 'C' after: the verity field of {@code dmsetup status}. */
  public char status() {
    return corruptions.get() == 0 ? 'V' : 'C';
  }

  /** Corruptions seen so far (every one, also under {@link CorruptionMode#IGNORE}). */
  public long corruptionCount() {
    return corruptions.get();
  }

  /** The first {@link #MAX_LOGGED} corruptions seen, in the order seen. */
  public List<CorruptBlockException> firstCorruptions() {
    synchronized (firstCorruptions) {
      return List.copyOf(firstCorruptions);
    }
  }

  /** Whether the reader has failed closed (modes RESTART and PANIC): every read now fails. */
  public boolean failedClosed() {
    return failedClosed.get() != null;
  }

  /**
   * Reads {@code length} verified bytes at {@code offset} into {@code dst[dstOffset...]}; any
   * range, aligned or not.
   *
   * @throws CorruptBlockException at the first block that does not verify; bytes before it in
   *     {@code dst} are verified, bytes after it are untouched
   * @throws EOFException if the range ends past the image
   */
  public void read(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    readVerified(offset, dst, dstOffset, length, false);
  }

  /**
   * The inline attempt: reads and verifies as {@link #read} does, but only while every hash block
   * needed is already cached; it never reads the hash device and never handles corruption (a
   * mismatch is left to the full path, with its recheck and policy). Returns how many bytes from
   * {@code offset} are verified and copied: all of them, or fewer when it stopped at a block it
   * could not verify this way, so the caller hands only the rest to a worker.
   */
  public int tryReadInline(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    return readVerified(offset, dst, dstOffset, length, true);
  }

  private int readVerified(long offset, byte[] dst, int dstOffset, int length, boolean cacheOnly)
      throws IOException {
    Objects.checkFromIndexSize(dstOffset, length, dst.length);
    if (offset < 0 || offset > size() - length) {
      throw new EOFException(data.description() + ": read of " + length + " bytes at " + offset
          + " is outside the image (" + size() + " bytes)");
    }
    CorruptBlockException closed = failedClosed.get();
    if (closed != null) {
      throw new FailedClosedException(options.mode(), closed);
    }
    int bs = params.dataBlockSize();
    Scratch s = scratch.get();
    long end = offset + length;
    long pos = offset;
    while (pos < end) {
      long firstBlock = pos / bs;
      long lastBlock = (end - 1) / bs;
      int blocks = (int) Math.min(lastBlock - firstBlock + 1, s.chunk.length / bs);
      data.readFully(firstBlock * bs, s.chunk, 0, blocks * bs);
      for (int i = 0; i < blocks; i++) {
        long block = firstBlock + i;
        if (verifiedData == null || !verifiedData.get(block)) {
          try {
            if (!verifyDataBlock(block, s.chunk, i * bs, s, cacheOnly)) {
              return (int) (pos - offset); // not verifiable inline: the rest goes to a worker
            }
            if (verifiedData != null) {
              verifiedData.set(block);
            }
          } catch (CorruptBlockException e) {
            handle(e); // returns only in IGNORE mode: the bytes as read are returned
          }
        }
        long blockStart = block * bs;
        long from = Math.max(pos, blockStart);
        long to = Math.min(end, blockStart + bs);
        System.arraycopy(s.chunk, (int) (from - firstBlock * bs), dst,
            (int) (dstOffset + from - offset), (int) (to - from));
        pos = to;
      }
    }
    return length;
  }

  /** Convenience: a new array of {@code length} verified bytes at {@code offset}. */
  public byte[] read(long offset, int length) throws IOException {
    byte[] out = new byte[length];
    read(offset, out, 0, length);
    return out;
  }

  /**
   * Verifies data block {@code block} held in {@code buf[off, off + dataBlockSize)}; may re-read it
   * into buf. Returns false, in cache-only mode, when it cannot decide without I/O or without the
   * corruption path.
   */
  private boolean verifyDataBlock(long block, byte[] buf, int off, Scratch s, boolean cacheOnly)
      throws IOException {
    int bs = params.dataBlockSize();
    byte[] want;
    int at;
    if (geometry.levels() == 0) {
      want = rootHash;
      at = 0;
    } else {
      HashBlock level0 = verifiedPath(block, s, cacheOnly);
      if (level0 == null) {
        return false; // a hash block on the path is not cached
      }
      want = level0.bytes;
      at = (int) (block & (geometry.hashesPerBlock() - 1)) * geometry.slotSize();
    }
    if (zeroDigest != null && matches(zeroDigest, want, at)) {
      Arrays.fill(buf, off, off + bs, (byte) 0); // ignore_zero_blocks: zeros, whatever the device holds
      return true;
    }
    s.hasher.hash(buf, off, bs, s.digest, 0);
    if (matches(s.digest, want, at)) {
      return true;
    }
    if (cacheOnly) {
      return false; // recheck, repair and the corruption policy run on the full path only
    }
    // Recheck: read the block again on its own and hash that copy before blaming the data.
    data.readFully(block * bs, s.recheck, 0, bs);
    s.hasher.hash(s.recheck, 0, bs, s.digest, 0);
    if (matches(s.digest, want, at)) {
      System.arraycopy(s.recheck, 0, buf, off, bs);
      return true;
    }
    throw new CorruptBlockException(data.description(), Area.DATA, block, -1);
  }

  /**
   * The one place the corruption mode is consulted: count and log, then fail the request (EIO),
   * let it go on (IGNORE), or fail it and every later one (RESTART, PANIC).
   */
  private void handle(CorruptBlockException e) throws IOException {
    long n = corruptions.incrementAndGet();
    if (n <= MAX_LOGGED) {
      synchronized (firstCorruptions) {
        firstCorruptions.add(e);
      }
      LOG.log(System.Logger.Level.WARNING, e.getMessage());
    }
    options.listener().corrupted(e);
    switch (options.mode()) {
      case EIO -> throw e;
      case IGNORE -> {}
      case RESTART, PANIC -> {
        if (failedClosed.compareAndSet(null, e)) {
          options.listener().failedClosed(options.mode(), e);
        }
        throw e;
      }
    }
  }

  /**
   * The level-0 hash block covering data block {@code block}, verified: climbs to the lowest
   * verified block on the path (or the root), then verifies and marks the blocks below it. In
   * cache-only mode, null when a block on the path is not cached (those verified so far stay
   * marked).
   */
  private HashBlock verifiedPath(long block, Scratch s, boolean cacheOnly) throws IOException {
    int levels = geometry.levels();
    int bits = geometry.hashesPerBlockBits();
    HashBlock[] path = s.path;
    int top = levels; // the lowest level whose path block is already verified; levels = none
    for (int i = 0; i < levels; i++) {
      HashBlock hb = cache.get(pathIndex(block, i));
      path[i] = hb;
      if (hb != null && hb.verified()) {
        top = i;
        break;
      }
    }
    for (int i = top - 1; i >= 0; i--) {
      HashBlock hb = path[i] != null ? path[i] : cacheOnly ? null : cache.load(pathIndex(block, i));
      if (hb == null) {
        Arrays.fill(path, null);
        return null;
      }
      path[i] = hb;
      if (!hb.verified()) {
        s.hasher.hash(hb.bytes, 0, hb.bytes.length, s.hashDigest, 0);
        boolean ok;
        if (i == levels - 1) {
          ok = matches(s.hashDigest, rootHash, 0);
        } else {
          long indexInParent = block >>> (bits * (i + 1));
          int slot = (int) (indexInParent & (geometry.hashesPerBlock() - 1));
          ok = matches(s.hashDigest, path[i + 1].bytes, slot * geometry.slotSize());
        }
        if (!ok) {
          if (cacheOnly) {
            Arrays.fill(path, null);
            return null; // the corruption path (policy, logging) never runs inline
          }
          throw new CorruptBlockException(hashDescription, Area.HASH, hb.index, i);
        }
        hb.markVerified();
      }
    }
    HashBlock level0 = path[0];
    Arrays.fill(path, null); // do not keep blocks alive past eviction
    return level0;
  }

  /** Hash block number on the hash device of the level-{@code level} block on data block {@code block}'s path. */
  long pathIndex(long block, int level) {
    return geometry.levelStart(level) + (block >>> (geometry.hashesPerBlockBits() * (level + 1)));
  }

  private boolean matches(byte[] digest, byte[] in, int at) {
    int d = geometry.digestSize();
    return Arrays.equals(digest, 0, d, in, at, at + d);
  }

  /** Per-thread state: a digest and buffers, so reads allocate nothing. */
  private static final class Scratch {
    final BlockHasher hasher;
    final byte[] digest;
    final byte[] hashDigest;
    final byte[] chunk;
    final byte[] recheck;
    final HashBlock[] path;

    Scratch(VerityParams p) {
      hasher = BlockHasher.dmVerity(p.hashAlgorithm(), p.hashFormat(), p.salt());
      digest = new byte[p.hashAlgorithm().digestSize()];
      hashDigest = new byte[digest.length];
      chunk = new byte[Math.max(p.dataBlockSize(), MAX_READ_CHUNK - MAX_READ_CHUNK % p.dataBlockSize())];
      recheck = new byte[p.dataBlockSize()];
      path = new HashBlock[TreeGeometry.of(p).levels() + 1];
    }
  }
}
