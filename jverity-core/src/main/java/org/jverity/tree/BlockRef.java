package org.jverity.tree;

import java.util.ArrayList;
import java.util.List;
import org.jverity.format.VerityParams;

/**
 * A block of a verity image named as the kernel names it in its log, by area and number ({@code
 * verity_handle_err}: "data block 1234", "metadata block 7"), with the tree level of a hash block.
 * Every message about a block prints it through this value, so {@code verify}, {@code read}, {@code
 * repair}, the server log and {@code status} read the same.
 *
 * @param area data or hash
 * @param block data block number, or hash block number on the hash device
 * @param level tree level of a hash block (0 = digests of data blocks); -1 for data, or when not
 *     known
 */
public record BlockRef(Area area, long block, int level) {

  public static BlockRef data(long block) {
    return new BlockRef(Area.DATA, block, -1);
  }

  /**
   * {@code data block 1234}, {@code hash block 7 (level 0)}, or {@code hash block 7} when the level
   * is not known.
   */
  @Override
  public String toString() {
    return describe();
  }

  /**
   * This block's name with {@code notes} added inside its parenthesis, after the level: {@code
   * describe("position 28672")} gives {@code hash block 7 (level 0, position 28672)}. Null notes
   * are left out.
   */
  public String describe(String... notes) {
    List<String> inside = new ArrayList<>();
    if (area == Area.HASH && level >= 0) {
      inside.add("level " + level);
    }
    for (String note : notes) {
      if (note != null) {
        inside.add(note);
      }
    }
    String name = area + " block " + block;
    return inside.isEmpty() ? name : name + " (" + String.join(", ", inside) + ")";
  }

  /**
   * Where the block starts in its file, in bytes: what veritysetup prints ("Verification failed at
   * position ...") and what {@code dd skip=} wants. Data blocks count from the data file's start,
   * hash blocks from the hash file's (a superblock sits in the first ones).
   */
  public long position(VerityParams p) {
    return block * (area == Area.DATA ? p.dataBlockSize() : p.hashBlockSize());
  }
}
