package org.jverity.tree;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.format.VerityParams;
import org.jverity.internal.ConcurrentBitSet;
import org.jverity.io.BlockDevice;

/**
 * Checks a whole image against its hash tree and root hash, like {@code veritysetup verify}, but
 * reports every corrupted block (data or hash) rather than stopping at the first. Levels are hashed
 * in parallel with the same loop the builder uses; memory is a few MiB per thread plus one bit per
 * hash block. Each call is independent; an instance may be shared by threads.
 */
public final class TreeChecker {
  private final VerityParams params;
  private final MerkleLayout layout;
  private final int threads;
  private final ProgressListener progress;

  private TreeChecker(
      VerityParams params, MerkleLayout layout, int threads, ProgressListener progress) {
    this.params = params;
    this.layout = layout;
    this.threads = threads;
    this.progress = progress;
  }

  public static TreeChecker of(VerityParams params) {
    return new TreeChecker(
        params, MerkleLayout.dmVerity(params), TreeBuilder.defaultThreads(), ProgressListener.NONE);
  }

  public TreeChecker withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new TreeChecker(params, layout, threads, progress);
  }

  public TreeChecker withProgress(ProgressListener progress) {
    return new TreeChecker(params, layout, threads, progress);
  }

  /** Where the tree is on the hash device. */
  public MerkleLayout layout() {
    return layout;
  }

  /** Input bytes a check hashes (the same as a build). */
  public long workBytes() {
    return TreeBuilder.of(params).workBytes();
  }

  /**
   * Checks every block.
   *
   * @throws org.jverity.io.DeviceTooSmallException if the data or hash device is too short
   */
  public CheckReport check(BlockDevice data, BlockDevice hash, byte[] rootHash) throws IOException {
    TreeRoot.requireDevices(layout, data, TreeRoot.dataBlocks(layout), hash, TreeRoot.HASH_AREA);
    byte[] computedRoot = TreeRoot.digest(layout, params.blockHasher(), data, hash);
    boolean rootMatches = MessageDigest.isEqual(computedRoot, rootHash);
    int levels = layout.levels();
    int bits = layout.hashesPerBlockBits();

    // mismatched[i]: level-i hash blocks that do not hash to the digest stored in level i+1.
    ConcurrentBitSet[] mismatched = new ConcurrentBitSet[levels];
    ConcurrentBitSet[] spareDirty = new ConcurrentBitSet[levels];
    for (int i = 0; i < levels; i++) {
      mismatched[i] = new ConcurrentBitSet(layout.levelBlocks(i));
      spareDirty[i] = new ConcurrentBitSet(layout.levelBlocks(i));
    }
    AtomicLong compared = new AtomicLong();
    AtomicLong mismatches = new AtomicLong();
    for (int level = levels - 1; level >= 1; level--) {
      ConcurrentBitSet below = mismatched[level - 1];
      ConcurrentBitSet dirty = spareDirty[level];
      run(
          level,
          data,
          hash,
          new LevelPass.Findings() {
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
      compared.addAndGet(layout.inputBlocks(level));
    }

    // Trust flows down from the top block. When the top does not hash to the root hash, either
    // the root hash given is wrong (the tree below agrees with the top) or the top block is
    // damaged (a block right below it disagrees with it): only then is the top distrusted.
    boolean topCorrupt =
        !rootMatches
            && levels >= 2
            && (mismatched[levels - 2].nextSet(0) >= 0 || spareDirty[levels - 1].get(0));
    CorruptionLog log = new CorruptionLog();
    ConcurrentBitSet[] untrusted = trust(mismatched, topCorrupt);
    for (int i = levels - 1; i >= 0; i--) {
      for (long j = mismatched[i].nextSet(0); j >= 0; j = mismatched[i].nextSet(j + 1)) {
        if (i + 1 < levels && !untrusted[i + 1].get(j >>> bits)) {
          log.add(
              new Corruption(
                  Area.HASH, layout.levelStart(i) + j, i, Corruption.Kind.DIGEST_MISMATCH));
        }
      }
      if (i > 0) {
        logSpares(log, mismatched, spareDirty, untrusted, i, topCorrupt);
      }
    }

    long unchecked = 0;
    long dataCorruptions = 0;
    boolean dataMismatchUnderTop = false;
    if (levels > 0) {
      ConcurrentBitSet level0Untrusted = untrusted[0];
      ConcurrentBitSet level0Spare = spareDirty[0];
      CorruptionLog dataLog = new CorruptionLog();
      boolean allUntrusted = topCorrupt;
      run(
          0,
          data,
          hash,
          new LevelPass.Findings() {
            @Override
            public void digestMismatch(long index) {
              mismatches.incrementAndGet();
              if (!allUntrusted && !level0Untrusted.get(index >>> bits)) {
                dataLog.add(Corruption.data(index));
              }
            }

            @Override
            public void spareNotZero(long index) {
              level0Spare.set(index);
            }
          });
      compared.addAndGet(layout.inputBlocks(0));
      dataMismatchUnderTop = dataLog.count() > 0;
      if (!rootMatches && levels == 1 && (dataLog.count() > 0 || spareDirty[0].get(0))) {
        topCorrupt = true; // the single level-0 block disagrees with the data below it
      }
      logSpares(log, mismatched, spareDirty, untrusted, 0, topCorrupt);
      long n = layout.dataBlocks();
      if (topCorrupt) {
        unchecked = n;
      } else {
        log.addAll(dataLog);
        dataCorruptions = dataLog.count();
        for (long j = level0Untrusted.nextSet(0); j >= 0; j = level0Untrusted.nextSet(j + 1)) {
          unchecked += Math.min(n, (j + 1) << bits) - (j << bits);
        }
      }
    }
    if (topCorrupt) {
      // Name the cause: digests that disagree with the level below, or only dirty spare bytes.
      boolean digestsWrong =
          levels >= 2 ? mismatched[levels - 2].nextSet(0) >= 0 : dataMismatchUnderTop;
      log.add(
          new Corruption(
              Area.HASH,
              layout.levelStart(levels - 1),
              levels - 1,
              digestsWrong || !spareDirty[levels - 1].get(0)
                  ? Corruption.Kind.DIGEST_MISMATCH
                  : Corruption.Kind.SPARE_NOT_ZERO));
    }
    return new CheckReport(
        rootMatches,
        computedRoot,
        log.first(),
        log.count(),
        dataCorruptions,
        unchecked,
        compared.get(),
        mismatches.get());
  }

  private void run(int level, BlockDevice data, BlockDevice hash, LevelPass.Findings findings)
      throws IOException {
    new LevelPass(
            layout,
            params.blockHasher(),
            level,
            data,
            hash,
            LevelPass.Mode.CHECK,
            findings,
            progress,
            threads)
        .run();
  }

  /**
   * Marks untrusted every hash block that mismatches its parent or sits below an untrusted one. The
   * top block is trusted unless {@code topCorrupt}.
   */
  private ConcurrentBitSet[] trust(ConcurrentBitSet[] mismatched, boolean topCorrupt) {
    int levels = layout.levels();
    int bits = layout.hashesPerBlockBits();
    ConcurrentBitSet[] untrusted = new ConcurrentBitSet[levels];
    for (int i = levels - 1; i >= 0; i--) {
      untrusted[i] = new ConcurrentBitSet(layout.levelBlocks(i));
      if (i == levels - 1) {
        if (topCorrupt) {
          untrusted[i].set(0);
        }
        continue;
      }
      for (long j = mismatched[i].nextSet(0); j >= 0; j = mismatched[i].nextSet(j + 1)) {
        untrusted[i].set(j);
      }
      for (long j = untrusted[i + 1].nextSet(0); j >= 0; j = untrusted[i + 1].nextSet(j + 1)) {
        long end = Math.min(layout.levelBlocks(i), (j + 1) << bits);
        for (long c = j << bits; c < end; c++) {
          untrusted[i].set(c);
        }
      }
    }
    return untrusted;
  }

  /** Logs the level's hash blocks with non-zero spare bytes whose parent is trusted. */
  private void logSpares(
      CorruptionLog log,
      ConcurrentBitSet[] mismatched,
      ConcurrentBitSet[] spareDirty,
      ConcurrentBitSet[] untrusted,
      int level,
      boolean topCorrupt) {
    int bits = layout.hashesPerBlockBits();
    boolean top = level == layout.levels() - 1;
    for (long j = spareDirty[level].nextSet(0); j >= 0; j = spareDirty[level].nextSet(j + 1)) {
      // A block that also mismatches its parent is already reported once, as corrupt.
      if (top ? !topCorrupt : !untrusted[level + 1].get(j >>> bits) && !mismatched[level].get(j)) {
        log.add(
            new Corruption(
                Area.HASH, layout.levelStart(level) + j, level, Corruption.Kind.SPARE_NOT_ZERO));
      }
    }
  }

  /** Counts corruptions and keeps the first {@link Corruption#MAX_REPORTED} in block order. */
  private static final class CorruptionLog {
    private final PriorityQueue<Corruption> kept = new PriorityQueue<>(Comparator.reverseOrder());
    private long count;

    synchronized void add(Corruption c) {
      count++;
      kept.add(c);
      if (kept.size() > Corruption.MAX_REPORTED) {
        kept.poll(); // drop the largest: we keep the lowest-numbered blocks
      }
    }

    synchronized void addAll(CorruptionLog other) {
      for (Corruption c : other.first()) {
        add(c);
      }
      count += other.count() - other.first().size(); // the other's unlisted ones still count
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
