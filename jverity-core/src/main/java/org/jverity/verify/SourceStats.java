package org.jverity.verify;

/**
 * A snapshot of what a {@link VerifiedSource} has seen, for a server's status and metrics. Counters
 * are summed without a lock: a snapshot taken while reads run is approximate, each counter
 * monotonic.
 *
 * @param corruptions blocks that did not verify, counted per read (also under {@link
 *     CorruptionMode#IGNORE})
 * @param repaired blocks the repairer (FEC) corrected and that then verified: not corruptions
 * @param failedClosed whether the source has failed closed (RESTART, PANIC): every read now fails
 * @param inlineReads requests verified inline on the calling thread (0 without a scheduler)
 * @param pooledReads requests verified, wholly or in part, on the hashing pool (0 without a
 *     scheduler)
 * @param fallbacks inline attempts that met a cache miss and handed the rest to the pool
 * @param cache the counters of the hash block cache the source reads through (shared with others)
 */
public record SourceStats(
    long corruptions,
    long repaired,
    boolean failedClosed,
    long inlineReads,
    long pooledReads,
    long fallbacks,
    CacheStats cache) {

  /**
   * 'V' while no corruption has been seen, 'C' after: the verity field of {@code dmsetup status}.
   */
  public char status() {
    return corruptions == 0 ? 'V' : 'C';
  }
}
