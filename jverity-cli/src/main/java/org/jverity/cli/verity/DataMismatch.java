package org.jverity.cli.verity;

import java.io.IOException;
import org.jverity.format.VerityParams;
import org.jverity.image.VerityImage;
import org.jverity.tree.Area;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * How many data blocks do not match a tree that is itself intact, to tell a hash file made for
 * other data (or data rewritten since it was formatted) from a damaged image: the first is said in
 * one line with these counts, not as a line per block.
 *
 * <p>The threshold: more than half of the data blocks checked mismatch, and at least {@link
 * #MIN_BLOCKS} of them. Damage (bad sectors, a bit flip, a tampered file) touches a few blocks, or
 * a run of them; even rewriting every file of a filesystem image leaves its metadata and free space
 * alone. Data the tree was not made for mismatches everywhere, except blocks both images share
 * under the same salt (zero blocks, say), and veritysetup picks a new random salt each time, so
 * those are rare too. Half sits far from both. The minimum keeps a small image with a few damaged
 * blocks a damaged image: 2 of 3 blocks is damage, not another image.
 *
 * @param mismatched data blocks that do not match the (intact) tree
 * @param checked data blocks compared
 * @param sampled whether {@code checked} is a sample of the data rather than all of it
 */
public record DataMismatch(long mismatched, long checked, boolean sampled) {
  /** Mismatches needed at least before the data as a whole is blamed. */
  static final long MIN_BLOCKS = 16;

  /**
   * Data blocks {@link #sample} compares at most: 4 MiB of 4 KiB blocks, hashed in milliseconds.
   */
  static final int SAMPLE = 1024;

  /**
   * Consecutive data blocks the sample reads at each place it looks: one level-0 hash block (and
   * the one path above it) covers them all, so a 1 TiB image whose tree is not in the page cache
   * costs 32 paths of disk reads, not 1,024.
   */
  static final int RUN = 32;

  /** Whether most blocks mismatch: the hash file does not belong to this data. */
  public boolean foreign() {
    return mismatched >= MIN_BLOCKS && mismatched > checked / 2;
  }

  /**
   * The one line, e.g. "hash file does not belong to this data: 1022 of 1024 data blocks mismatch".
   */
  public String describe() {
    return "hash file does not belong to this data: "
        + mismatched
        + " of "
        + checked
        + " data blocks "
        + (sampled ? "sampled " : "")
        + "mismatch (or the data was rewritten after it was formatted)";
  }

  /**
   * Compares up to {@link #SAMPLE} data blocks with the tree (all of them when there are fewer):
   * {@link #RUN} consecutive blocks at each of {@code SAMPLE / RUN} places spread evenly over the
   * image, through a reader of its own with a small cache: nothing is repaired or reported, and a
   * block whose hash blocks do not verify is left out of the count. Reads and memory are bounded
   * whatever the image size ({@code open} and {@code serve} run it before listening). A run is read
   * in one request, and block by block only when it fails: an intact image costs 32 reads.
   */
  public static DataMismatch sample(VerityImage image) throws IOException {
    return sample(image, false);
  }

  /**
   * As {@link #sample(VerityImage)}; under {@code ignoreZeroBlocks} a block whose digest is the
   * zero block's matches whatever the data holds there, as the export serves it (zeros).
   */
  public static DataMismatch sample(VerityImage image, boolean ignoreZeroBlocks)
      throws IOException {
    VerityParams p = image.trusted().params();
    long blocks = p.dataBlocks();
    boolean all = blocks <= SAMPLE;
    long runs = all ? Math.ceilDiv(blocks, RUN) : SAMPLE / RUN;
    int bs = p.dataBlockSize();
    byte[] buf = new byte[RUN * bs];
    long mismatched = 0;
    long checked = 0;
    try (VerifiedReader r =
        image.probe(
            new HashBlockCache(8 << 20),
            ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(ignoreZeroBlocks))) {
      for (long i = 0; i < runs; i++) { // asked for at once: from a remote origin, in parallel
        long start = runStart(i, runs, blocks, all);
        r.prefetch(start * bs, Math.min(RUN, blocks - start) * bs);
      }
      for (long i = 0; i < runs; i++) {
        long start = runStart(i, runs, blocks, all);
        int length = (int) Math.min(RUN, blocks - start);
        try {
          r.read(start * bs, buf, 0, length * bs);
          checked += length;
          continue;
        } catch (CorruptBlockException e) {
          // somewhere in the run: count block by block
        }
        for (long block = start; block < start + length; block++) {
          try {
            r.read(block * bs, buf, 0, bs);
            checked++;
          } catch (CorruptBlockException e) {
            if (e.area() == Area.DATA) {
              checked++;
              mismatched++;
            }
          }
        }
      }
    }
    return new DataMismatch(mismatched, checked, !all);
  }

  /**
   * Run {@code i}'s first block: all, back to back; else floor(i * blocks / runs), overflow-free.
   */
  private static long runStart(long i, long runs, long blocks, boolean all) {
    return all ? i * RUN : i * (blocks / runs) + i * (blocks % runs) / runs;
  }
}
