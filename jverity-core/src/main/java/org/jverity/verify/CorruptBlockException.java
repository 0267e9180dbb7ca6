package org.jverity.verify;

import java.io.IOException;
import org.jverity.tree.Area;

/**
 * A block that does not match its trusted digest: a verified read never returns its bytes. Callers
 * branch on {@link #area()}, {@link #block()} and {@link #level()}, never on the message.
 */
public final class CorruptBlockException extends IOException {
  private final Area area;
  private final long block;
  private final int level;

  /**
   * @param area data or hash
   * @param block data block number, or hash block number on the hash device
   * @param level tree level of a hash block; -1 for data
   */
  public CorruptBlockException(String source, Area area, long block, int level) {
    super(source + ": " + (area == Area.DATA ? "data block " + block : "hash block " + block + " (level " + level + ")")
        + " is corrupted");
    this.area = area;
    this.block = block;
    this.level = level;
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
}
