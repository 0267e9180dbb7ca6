package org.jverity.remote;

import java.util.Arrays;

/**
 * The sequential streams among a device's reads, and how far to read ahead of each: adaptive as the
 * kernel's readahead. A read that continues a stream (it starts in or right after the chunk the
 * stream last read, or inside what was asked ahead of it) moves it on; any other read starts a new
 * stream in the least recently used entry, with no window (a random read resets). A stream's first
 * window opens on a miss, twice the read, at least {@link #MIN_WINDOW} chunks; the next is asked,
 * twice as wide up to the bound, when the stream comes within half a window of the end of what was
 * asked, so the fetch ahead is in flight before the reads reach it.
 *
 * <p>A small fixed table: several clients can stream at once, memory does not grow with them.
 * Thread-safe.
 */
final class ReadAhead {
  static final int STREAMS = 8;
  static final int MIN_WINDOW = 4; // chunks: 256 KiB of 64 KiB chunks

  private final int maxWindow; // chunks; 0: no read-ahead
  private final long[] last = new long[STREAMS]; // the last chunk the stream read; -1: none
  private final long[] aheadTo = new long[STREAMS]; // the chunk after the last asked ahead
  private final int[] window = new int[STREAMS]; // chunks of the last window asked; 0: none yet
  private final long[] used = new long[STREAMS]; // when the entry last matched, for LRU
  private long clock;

  ReadAhead(int maxWindowChunks) {
    this.maxWindow = Math.max(0, maxWindowChunks);
    Arrays.fill(last, -1);
  }

  /**
   * Notes a read of chunks {@code [first, lastChunk]} ({@code missed}: some were not cached) and
   * returns the chunks to fetch ahead as {@code {from, to}}, or null for none.
   */
  synchronized long[] onRead(long first, long lastChunk, boolean missed) {
    if (maxWindow == 0) {
      return null;
    }
    clock++;
    int s = find(first);
    if (s < 0) {
      s = leastRecent();
      last[s] = lastChunk;
      aheadTo[s] = lastChunk + 1;
      window[s] = 0;
      used[s] = clock;
      return null;
    }
    used[s] = clock;
    last[s] = Math.max(last[s], lastChunk);
    if (window[s] == 0) {
      if (!missed) {
        return null; // sequential over cached chunks: nothing to fetch
      }
      long want = Math.max(MIN_WINDOW, 2 * (lastChunk - first + 1));
      window[s] = (int) Math.min(maxWindow, want);
    } else if (aheadTo[s] - last[s] <= window[s] / 2) {
      window[s] = Math.min(maxWindow, 2 * window[s]);
    } else {
      return null; // enough is in flight ahead
    }
    long from = Math.max(aheadTo[s], last[s] + 1);
    aheadTo[s] = from + window[s];
    return new long[] {from, aheadTo[s]};
  }

  private int find(long first) {
    for (int s = 0; s < STREAMS; s++) {
      if (last[s] >= 0 && first >= last[s] && first <= Math.max(last[s] + 1, aheadTo[s] - 1)) {
        return s;
      }
    }
    return -1;
  }

  private int leastRecent() {
    int best = 0;
    for (int s = 1; s < STREAMS; s++) {
      if (used[s] < used[best]) {
        best = s;
      }
    }
    return best;
  }
}
