package org.jverity.remote;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One range request for a run of adjacent chunks, in flight: every read that needs one of its
 * chunks waits for it rather than asking the origin again. Its chunks are claimed one by one while
 * the run is built (by one thread), then fixed before it starts.
 */
final class ChunkFetch {
  final long first; // the first chunk
  int chunks; // how many, claimed so far

  /** The run's bytes (read-only, position 0), or the fetch's failure. */
  final CompletableFuture<ByteBuffer> done = new CompletableFuture<>();

  ChunkFetch(long first) {
    this.first = first;
  }

  long end() {
    return first + chunks;
  }
}
