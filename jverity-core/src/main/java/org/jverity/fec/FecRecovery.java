package org.jverity.fec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * What forward error correction can do for a damaged image: reads every data block through a {@link
 * VerifiedReader} whose repairer is FEC (so every hash block on every path is checked, and
 * repaired, too), with the blocks a full check found corrupt given as known-bad (erasures), and
 * collects each correction that verified against the tree. Writes nothing: {@code verify} reports
 * the result, {@code repair} writes the corrections. Not thread-safe; one run per instance.
 */
public final class FecRecovery {
  /** Data read per step, bytes. */
  private static final int PIECE = 1 << 20;

  /**
   * A block FEC corrected, verified against the tree.
   *
   * @param area data or hash
   * @param block data block number, or hash block number on the hash device
   * @param bytes the corrected block
   * @param correctedBytes bytes of the block on the device that FEC changed: the Reed-Solomon
   *     symbols corrected, what veritysetup counts as "repairable errors"
   */
  public record Fix(Area area, long block, byte[] bytes, int correctedBytes) {}

  /**
   * @param fixes corrections, data blocks first, each block once, in block order
   * @param uncorrectable the first failure of each data block whose read FEC could not save
   * @param uncorrectableCount how many data blocks could not be read verified
   */
  public record Result(
      List<Fix> fixes, List<CorruptBlockException> uncorrectable, long uncorrectableCount) {
    public boolean complete() {
      return uncorrectableCount == 0;
    }

    /** Bytes (Reed-Solomon symbols) corrected in all the blocks fixed. */
    public long correctedBytes() {
      return fixes.stream().mapToLong(Fix::correctedBytes).sum();
    }
  }

  private final VerityParams params;
  private final FecRepairer repairer;
  private final Map<String, Fix> fixes =
      new ConcurrentSkipListMap<>(); // "D000…block" / "H…": sorted, each once

  public FecRecovery(VerityParams params, FecRepairer repairer) {
    this.params = params;
    this.repairer = repairer;
  }

  /** Marks a block a full check found corrupt, so FEC treats it as an erasure. */
  public void knownBad(Area area, long block) {
    repairer.knownBad(area, block);
  }

  /**
   * Reads the whole image verified, FEC correcting what it can; {@code maxListed} failures are
   * kept.
   */
  public Result run(BlockDevice data, BlockDevice hash, byte[] rootHash, int maxListed)
      throws IOException {
    BlockRepairer recording =
        (area, block, size, check) -> {
          byte[] fixed = repairer.repair(area, block, size, check);
          if (fixed != null) { // the repairer returns only candidates that verified
            String key = String.format("%s%020d", area == Area.DATA ? "D" : "H", block);
            if (!fixes.containsKey(key)) {
              int changed = changedBytes(area == Area.DATA ? data : hash, block * size, fixed);
              fixes.putIfAbsent(key, new Fix(area, block, fixed.clone(), changed));
            }
          }
          return fixed;
        };
    List<CorruptBlockException> failures = new ArrayList<>();
    long failed = 0;
    try (VerifiedReader reader =
        VerifiedReader.open(
            params,
            data,
            hash,
            rootHash,
            new HashBlockCache(HashBlockCache.DEFAULT_CAPACITY_BYTES),
            ReaderOptions.DEFAULTS.withRepairer(recording))) {
      int bs = params.dataBlockSize();
      byte[] buf = new byte[Math.max(bs, PIECE - PIECE % bs)];
      long size = reader.size();
      for (long pos = 0; pos < size; ) {
        int n = (int) Math.min(buf.length, size - pos);
        try {
          reader.read(pos, buf, 0, n);
          pos += n;
        } catch (CorruptBlockException e) {
          long bad = e.dataBlock() >= 0 ? e.dataBlock() : pos / bs;
          failed++;
          if (failures.size() < maxListed) {
            failures.add(e);
          }
          pos = Math.max(pos, (bad + 1) * bs); // the blocks before it verified; go on after it
        }
      }
    }
    List<Fix> list = new ArrayList<>(fixes.values());
    return new Result(Collections.unmodifiableList(list), List.copyOf(failures), failed);
  }

  /**
   * Bytes of {@code fixed} that differ from the block at {@code offset}; bytes past the end count
   * as changed.
   */
  private static int changedBytes(BlockDevice device, long offset, byte[] fixed)
      throws IOException {
    int present = (int) Math.max(0, Math.min(fixed.length, device.size() - offset));
    byte[] stored = new byte[present];
    device.readFully(offset, stored, 0, present);
    int changed = fixed.length - present;
    for (int i = 0; i < present; i++) {
      if (stored[i] != fixed[i]) {
        changed++;
      }
    }
    return changed;
  }
}
