package org.jverity.verify;

/**
 * A snapshot of a {@link HashBlockCache}'s counters. Counters are summed without a lock, so a
 * snapshot taken while reads run is approximate but each counter is monotonic.
 *
 * @param capacityBytes the byte budget shared by every image
 * @param cachedBytes bytes of hash blocks cached now
 * @param cachedBlocks hash blocks cached now
 * @param images images (cache spaces) open now
 * @param hits lookups that found their block
 * @param misses lookups that did not
 * @param loads hash device reads made to fill the cache (one per miss, however many threads missed
 *     the same block at once)
 * @param evictions blocks dropped to stay within the budget
 * @param invalidations blocks dropped because they did not verify
 */
public record CacheStats(
    long capacityBytes,
    long cachedBytes,
    long cachedBlocks,
    int images,
    long hits,
    long misses,
    long loads,
    long evictions,
    long invalidations) {}
