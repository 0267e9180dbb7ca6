package org.jverity.cli.verity;

import org.jverity.format.VerityParams;
import org.jverity.tree.Area;
import org.jverity.tree.BlockRef;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.CorruptBlockException;

/**
 * Names a block for a message by its number and its byte position in its file, as in {@code data
 * block 1234 (position 5054464)} or {@code hash block 7 (level 0, position 28672)}: the number is
 * what jverity and the kernel count, the position is what veritysetup prints ("Verification failed
 * at position ...") and what {@code dd skip=} or a hex editor wants. Data blocks are counted from
 * the start of the data file, hash blocks from the start of the hash file (the superblock, when
 * there is one, sits in the first ones), so the position is the number times the block size.
 */
public final class BlockNames {
  private BlockNames() {}

  /** A noun phrase for {@code c}, to complete with "is corrupted". */
  static String of(Corruption c, VerityParams p) {
    return of(c.area(), c.block(), c.level(), c.kind() == Corruption.Kind.SPARE_NOT_ZERO, p);
  }

  /**
   * A noun phrase for the block {@code e} names (without its file), to complete with "is
   * corrupted".
   */
  static String of(CorruptBlockException e, VerityParams p) {
    return of(e.area(), e.block(), e.level(), false, p);
  }

  /** A noun phrase for a block known only by number (a hash block's level is looked up). */
  static String of(Area area, long block, VerityParams p) {
    return of(
        area, block, area == Area.DATA ? -1 : MerkleLayout.dmVerity(p).levelOf(block), false, p);
  }

  /** Where the block starts in its file (data or hash), in bytes. */
  public static long position(Area area, long block, VerityParams p) {
    return new BlockRef(area, block, -1).position(p);
  }

  /**
   * @param level the tree level of a hash block, or -1 when unknown or for data
   * @param spare whether the hash block's unused bytes are what is wrong
   */
  static String of(Area area, long block, int level, boolean spare, VerityParams p) {
    return new BlockRef(area, block, level)
        .describe("position " + position(area, block, p), spare ? "spare area not zeroed" : null);
  }
}
