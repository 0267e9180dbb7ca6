package org.jverity.verify;

import java.io.IOException;
import org.jverity.tree.Area;
import org.jverity.tree.BlockRef;

/**
 * A block that does not match its trusted digest: a verified read never returns its bytes. Callers
 * branch on {@link #area()}, {@link #block()} and {@link #level()}, never on the message. What left
 * the mismatch standing, when something failed on the way (the recheck's read, the {@link
 * BlockRepairer}), is attached as a suppressed exception.
 */
public final class CorruptBlockException extends IOException {
  private final Area area;
  private final long block;
  private final int level;
  private final long dataBlock;
  private final boolean unreadable;

  /**
   * @param area data or hash
   * @param block data block number, or hash block number on the hash device
   * @param level tree level of a hash block; -1 for data
   */
  public CorruptBlockException(String source, Area area, long block, int level) {
    this(source, area, block, level, area == Area.DATA ? block : -1);
  }

  /**
   * @param dataBlock the data block whose read met the corruption (for a hash block, the one whose
   *     path it is on); -1 when unknown
   */
  public CorruptBlockException(String source, Area area, long block, int level, long dataBlock) {
    this(
        source + ": " + new BlockRef(area, block, level) + " is corrupted",
        area,
        block,
        level,
        dataBlock,
        null);
  }

  /**
   * A block that could not be read, counted as corruption ({@link
   * ReaderOptions#errorAsCorruption()}): the device's error is the cause.
   */
  public static CorruptBlockException unreadable(
      String source, Area area, long block, int level, long dataBlock, IOException cause) {
    return new CorruptBlockException(
        source
            + ": "
            + new BlockRef(area, block, level)
            + " could not be read, counted as corruption: "
            + cause.getMessage(),
        area,
        block,
        level,
        dataBlock,
        cause);
  }

  private CorruptBlockException(
      String message, Area area, long block, int level, long dataBlock, IOException cause) {
    super(message, cause);
    this.unreadable = cause != null;
    this.area = area;
    this.block = block;
    this.level = level;
    this.dataBlock = dataBlock;
  }

  /**
   * The data block whose read failed: every byte before it in the request verified. -1 when
   * unknown.
   */
  public long dataBlock() {
    return dataBlock;
  }

  /**
   * Whether the block could not be read at all (an I/O error counted as corruption, {@link
   * ReaderOptions#errorAsCorruption()}; the device's error is the cause), rather than read and not
   * matched.
   */
  public boolean unreadable() {
    return unreadable;
  }

  public Area area() {
    return area;
  }

  public long block() {
    return block;
  }

  public int level() {
    return level;
  }

  /** The corrupted block, to name in a message. */
  public BlockRef ref() {
    return new BlockRef(area, block, level);
  }
}
