package org.jverity.fec;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.verify.BlockRepairer;

/**
 * Forward error correction as the read path's {@link BlockRepairer}: maps the block that failed
 * verification to its message block and asks a {@link FecCorrector}, first without erasures, then
 * (as the kernel does) with erasures: other blocks of its round that failed verification before
 * with the block itself, which is known bad, then the block alone; blocks that fail to read are
 * always erasures (the corrector adds those). The first candidate that verifies against the tree is
 * returned, so a miscorrection of one attempt does not stop the next; the reader verifies it again.
 * Thread-safe.
 *
 * <p>The kernel finds erasures by hashing every block of the round; a repairer has no tree, so it
 * remembers the blocks it was asked to repair (a bounded memory: they failed verification and stay
 * bad on the device, whether or not FEC corrected them in memory).
 */
public final class FecRepairer implements BlockRepairer {
  /** Rounds whose known-bad blocks are remembered; past this the memory starts over. */
  private static final int MAX_REMEMBERED_ROUNDS = 4096;

  private final FecCorrector corrector;
  private final FecLayout layout;

  /** Round → message blocks of it that failed verification (at most roots, most recent last). */
  private final ConcurrentHashMap<Long, long[]> knownBad = new ConcurrentHashMap<>();

  private final LongAdder corrected = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder notCovered = new LongAdder();

  public FecRepairer(FecCorrector corrector) {
    this.corrector = Objects.requireNonNull(corrector, "corrector");
    this.layout = corrector.layout();
  }

  public FecRepairer(FecLayout layout, BlockDevice data, BlockDevice hash, BlockDevice fec) {
    this(new FecCorrector(layout, data, hash, fec));
  }

  public FecCorrector corrector() {
    return corrector;
  }

  /** Blocks for which FEC produced a corrected copy (the reader still verifies it). */
  public long correctedCount() {
    return corrected.sum();
  }

  /** Blocks FEC could not correct (every codeword of the round must decode). */
  public long failedCount() {
    return failed.sum();
  }

  /** Blocks asked for that FEC does not cover (hash device blocks outside the message area). */
  public long notCoveredCount() {
    return notCovered.sum();
  }

  @Override
  public byte[] repair(Area area, long block, int blockSize, BlockCheck check) {
    if (blockSize != layout.blockSize()) {
      throw new IllegalArgumentException(
          "block size: "
              + blockSize
              + " (expected: the FEC block size "
              + layout.blockSize()
              + ")");
    }
    long m =
        area == Area.DATA
            ? (block >= 0 && block < layout.dataBlocks() ? layout.messageIndexOfData(block) : -1)
            : layout.messageIndexOfHash(block);
    if (m < 0) {
      notCovered.increment();
      return null;
    }
    long[] others = remember(m);
    if (others.length == 1) { // the only bad block of its round we know of: try the cheap way first
      byte[] fast = corrector.correctSingleErasure(m);
      if (fast != null && check.verifies(fast)) {
        corrected.increment();
        return fast;
      }
    }
    long[][] attempts =
        others.length > 1
            ? new long[][] {new long[0], others, new long[] {m}}
            : new long[][] {new long[0], new long[] {m}};
    // Screened first (decode only the codewords that do not XOR to zero: a few, for scattered
    // damage), then every codeword; the tree decides which candidate is right.
    for (boolean screened : new boolean[] {true, false}) {
      for (long[] erasures : attempts) {
        byte[] fixed =
            screened ? corrector.correctScreened(m, erasures) : corrector.correct(m, erasures);
        if (fixed != null && check.verifies(fixed)) {
          corrected.increment();
          return fixed;
        }
      }
    }
    failed.increment();
    return null;
  }

  /**
   * Tells the repairer that a block is known bad (a full check found it), so that corrections of
   * its round treat it as an erasure, as the kernel does with the blocks of a round that fail
   * verification. Blocks FEC does not cover are ignored.
   */
  public void knownBad(Area area, long block) {
    long m =
        area == Area.DATA
            ? (block >= 0 && block < layout.dataBlocks() ? layout.messageIndexOfData(block) : -1)
            : layout.messageIndexOfHash(block);
    if (m >= 0) {
      remember(m);
    }
  }

  /**
   * Records {@code m} as known bad; returns the known-bad blocks of its round, {@code m} included.
   */
  private long[] remember(long m) {
    if (knownBad.size() > MAX_REMEMBERED_ROUNDS) {
      knownBad.clear();
    }
    int cap = layout.roots();
    return knownBad.compute(
        layout.round(m),
        (round, bad) -> {
          if (bad == null) {
            return new long[] {m};
          }
          long[] rest = Arrays.stream(bad).filter(x -> x != m).toArray();
          long[] now =
              Arrays.copyOfRange(rest, Math.max(0, rest.length - (cap - 1)), rest.length + 1);
          now[now.length - 1] = m;
          return now;
        });
  }
}
