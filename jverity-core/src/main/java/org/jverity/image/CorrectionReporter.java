package org.jverity.image;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jverity.tree.Area;
import org.jverity.verify.BlockRepairer;

/**
 * A {@link BlockRepairer} that tells a listener about each correction its repairer made (verified
 * against the tree, as the kernel logs one). Once per block, or every time: pieces read at once may
 * each correct a shared hash block, and a one-shot read names a block once, while a server that
 * logs each correction keeps doing so.
 */
public final class CorrectionReporter implements BlockRepairer {
  /** Told of a block a repairer corrected. */
  @FunctionalInterface
  public interface Listener {
    void corrected(Area area, long block);
  }

  private final BlockRepairer repairer;
  private final Listener listener;
  private final Set<Long> reported; // area in the top bit; null: report every correction

  private CorrectionReporter(BlockRepairer repairer, Listener listener, boolean once) {
    this.repairer = repairer;
    this.listener = listener;
    this.reported = once ? ConcurrentHashMap.newKeySet() : null;
  }

  /** Reports each block the first time it is corrected. */
  public static BlockRepairer oncePerBlock(BlockRepairer repairer, Listener listener) {
    return new CorrectionReporter(repairer, listener, true);
  }

  /** Reports every correction. */
  public static BlockRepairer everyTime(BlockRepairer repairer, Listener listener) {
    return new CorrectionReporter(repairer, listener, false);
  }

  @Override
  public byte[] repair(Area area, long block, int blockSize, BlockCheck check) throws IOException {
    byte[] fixed = repairer.repair(area, block, blockSize, check);
    if (fixed != null
        && (reported == null || reported.add(area == Area.DATA ? block : block | Long.MIN_VALUE))) {
      listener.corrected(area, block);
    }
    return fixed;
  }
}
