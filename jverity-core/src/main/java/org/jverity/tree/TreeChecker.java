package org.jverity.tree;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;

/**
 * Checks a whole image against its hash tree and root hash, like {@code veritysetup verify}, but
 * reports every corrupted block (data or hash) rather than stopping at the first. Levels are
 * hashed in parallel with the same loop the builder uses; memory is a few MiB per thread plus
 * one bit per hash block. Each call is independent; an instance may be shared by threads.
 */
public final class TreeChecker {
  private final TreeGeometry geometry;
  private final int threads;
  private final ProgressListener progress;

  private TreeChecker(TreeGeometry geometry, int threads, ProgressListener progress) {
    this.geometry = geometry;
    this.threads = threads;
    this.progress = progress;
  }

  public static TreeChecker of(VerityParams params) {
    return new TreeChecker(TreeGeometry.of(params), TreeWalker.defaultThreads(), ProgressListener.NONE);
  }

  public TreeChecker withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new TreeChecker(geometry, threads, progress);
  }

  public TreeChecker withProgress(ProgressListener progress) {
    return new TreeChecker(geometry, threads, progress);
  }

  public TreeGeometry geometry() {
    return geometry;
  }

  /** Input bytes a check hashes (the same as a build). */
  public long workBytes() {
    return TreeBuilder.of(geometry.params()).workBytes();
  }

  /**
   * Checks every block.
   *
   * @throws org.jverity.io.DeviceTooSmallException if the data or hash device is too short
   */
  public CheckReport check(BlockDevice data, BlockDevice hash, byte[] rootHash) throws IOException {
    TreeWalker.requireDataSize(geometry, data);
    TreeWalker.requireHashSize(geometry, hash);
    byte[] computedRoot = TreeWalker.rootDigest(geometry, data, hash);
    boolean rootMatches = MessageDigest.isEqual(computedRoot, rootHash);
    int levels = geometry.levels();
    int bits = geometry.hashesPerBlockBits();

    // mismatched[i]: level-i hash blocks that do not hash to the digest stored in level i+1.
    ConcurrentBitSet[] mismatched = new ConcurrentBitSet[levels];
    ConcurrentBitSet[] spareDirty = new ConcurrentBitSet[levels];
    for (int i = 0; i < levels; i++) {
      mismatched[i] = new ConcurrentBitSet(geometry.levelBlocks(i));
      spareDirty[i] = new ConcurrentBitSet(geometry.levelBlocks(i));
    }
    AtomicLong compared = new AtomicLong();
    AtomicLong mismatches = new AtomicLong();
    for (int level = levels - 1; level >= 1; level--) {
      ConcurrentBitSet below = mismatched[level - 1];
      ConcurrentBitSet dirty = spareDirty[level];
      run(level, data, hash, new LevelPass.Findings() {
        @Override
        public void digestMismatch(long index) {
          mismatches.incrementAndGet();
          below.set(index);
        }

        @Override
        public void spareNotZero(long index) {
          dirty.set(index);
        }
      });
      compared.addAndGet(geometry.inputBlocks(level));
    }

    // Trust flows down from the top, taken as trusted so that a wrong root hash can be told
    // apart from damage below it: a block is trusted if it matches a trusted parent. But when
    // the root hash does not match and the top block also disagrees with the level below, the
    // top block itself is corrupt (one fault explains both), and nothing below can be trusted.
    ConcurrentBitSet[] untrusted = new ConcurrentBitSet[levels];
    CorruptionLog log = new CorruptionLog();
    for (int i = levels - 1; i >= 0; i--) {
      untrusted[i] = new ConcurrentBitSet(geometry.levelBlocks(i));
      if (i == levels - 1 && i >= 1 && !rootMatches && mismatched[i - 1].nextSet(0) >= 0) {
        untrusted[i].set(0);
        log.add(new Corruption(Area.HASH, geometry.levelStart(i), i, Corruption.Kind.DIGEST_MISMATCH));
      }
      for (long j = mismatched[i].nextSet(0); j >= 0; j = mismatched[i].nextSet(j + 1)) {
        untrusted[i].set(j);
      }
      if (i + 1 < levels) {
        for (long j = untrusted[i + 1].nextSet(0); j >= 0; j = untrusted[i + 1].nextSet(j + 1)) {
          long firstChild = j << bits;
          long end = Math.min(geometry.levelBlocks(i), firstChild + geometry.hashesPerBlock());
          for (long c = firstChild; c < end; c++) {
            untrusted[i].set(c);
          }
        }
      }
      for (long j = mismatched[i].nextSet(0); j >= 0; j = mismatched[i].nextSet(j + 1)) {
        if (i + 1 == levels || !untrusted[i + 1].get(j >>> bits)) {
          log.add(new Corruption(Area.HASH, geometry.levelStart(i) + j, i, Corruption.Kind.DIGEST_MISMATCH));
        }
      }
      for (long j = spareDirty[i].nextSet(0); j >= 0; j = spareDirty[i].nextSet(j + 1)) {
        if (!untrusted[i].get(j)) {
          log.add(new Corruption(Area.HASH, geometry.levelStart(i) + j, i, Corruption.Kind.SPARE_NOT_ZERO));
        }
      }
    }

    long unchecked = 0;
    if (levels > 0) {
      ConcurrentBitSet level0Untrusted = untrusted[0];
      // In a one-level tree this pass checks the top block: hold its findings until we know
      // whether to blame the data blocks or the top block (as above).
      CorruptionLog dataLog = levels == 1 ? new CorruptionLog() : log;
      run(0, data, hash, new LevelPass.Findings() {
        @Override
        public void digestMismatch(long index) {
          mismatches.incrementAndGet();
          if (!level0Untrusted.get(index >>> bits)) {
            dataLog.add(Corruption.data(index));
          }
        }

        @Override
        public void spareNotZero(long index) {
          // Nothing to add: dirty spare bytes change the block's digest, so level 1 has already
          // flagged the block; in a one-level tree checkTopSpare reports them.
        }
      });
      compared.addAndGet(geometry.inputBlocks(0));
      if (dataLog != log) {
        if (!rootMatches && dataLog.count() > 0) {
          level0Untrusted.set(0);
          log.add(new Corruption(Area.HASH, geometry.levelStart(0), 0, Corruption.Kind.DIGEST_MISMATCH));
        } else {
          log.addAll(dataLog);
        }
      }
      long n = geometry.params().dataBlocks();
      for (long j = level0Untrusted.nextSet(0); j >= 0; j = level0Untrusted.nextSet(j + 1)) {
        unchecked += Math.min(n, (j + 1) << bits) - (j << bits);
      }
      if (!spareDirty[levels - 1].get(0) && !untrusted[levels - 1].get(0)) {
        // The top block's spare bytes: no level above reads them, so check them here.
        checkTopSpare(hash, log);
      }
    }
    return new CheckReport(
        rootMatches, computedRoot, log.first(), log.count(), unchecked, compared.get(), mismatches.get());
  }

  private void run(int level, BlockDevice data, BlockDevice hash, LevelPass.Findings findings)
      throws IOException {
    new LevelPass(geometry, level, data, hash, LevelPass.Mode.CHECK, findings, progress, threads).run();
  }

  private void checkTopSpare(BlockDevice hash, CorruptionLog log) throws IOException {
    int top = geometry.levels() - 1;
    int hbs = geometry.params().hashBlockSize();
    byte[] block = new byte[hbs];
    hash.readFully(geometry.levelStart(top) * hbs, block, 0, hbs);
    int used = (int) geometry.inputBlocks(top);
    int slot = geometry.slotSize();
    boolean dirty = !LevelPass.isZero(block, used * slot, hbs);
    for (int s = 0; s < used && !dirty; s++) {
      dirty = !LevelPass.isZero(block, s * slot + geometry.digestSize(), (s + 1) * slot);
    }
    if (dirty) {
      log.add(new Corruption(Area.HASH, geometry.levelStart(top), top, Corruption.Kind.SPARE_NOT_ZERO));
    }
  }

  /** Counts corruptions and keeps the first {@link CheckReport#MAX_LISTED} in block order. */
  private static final class CorruptionLog {
    private final PriorityQueue<Corruption> kept = new PriorityQueue<>(java.util.Comparator.reverseOrder());
    private long count;

    synchronized void add(Corruption c) {
      count++;
      kept.add(c);
      if (kept.size() > CheckReport.MAX_LISTED) {
        kept.poll(); // drop the largest: we keep the lowest-numbered blocks
      }
    }

    /** Adds everything {@code other} counted, keeping the first ones of both. */
    void addAll(CorruptionLog other) {
      List<Corruption> first = other.first();
      for (Corruption c : first) {
        add(c);
      }
      synchronized (this) {
        count += other.count() - first.size();
      }
    }

    synchronized long count() {
      return count;
    }

    synchronized List<Corruption> first() {
      List<Corruption> list = new ArrayList<>(kept);
      list.sort(null);
      return list;
    }
  }
}
