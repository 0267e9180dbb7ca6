package org.jverity.remote.cache;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Where a {@link ChunkCache} keeps its chunks: a fixed number of chunk-sized slots, and a record
 * per slot saying which chunk it holds. The cache decides what goes where (its index, its clock); a
 * store only moves bytes, so memory and disk are the same cache.
 */
interface SlotStore extends Closeable {
  /** A slot's record as the store found it at open: a chunk of an object, {@code length} bytes. */
  record Entry(int slot, String key, long chunk, int length) {}

  /**
   * The slots that held a whole chunk when the store was last closed (or killed); none in memory.
   */
  List<Entry> entries() throws IOException;

  /** Copies the slot's bytes from {@code from} into {@code dst}, to its limit. */
  void read(int slot, int from, ByteBuffer dst) throws IOException;

  /** Forgets what the slot held, before its bytes are overwritten (so a torn write is no entry). */
  void forget(int slot) throws IOException;

  /** Writes {@code bytes} (from position to limit) at the slot's start. */
  void write(int slot, ByteBuffer bytes) throws IOException;

  /**
   * Records that the slot holds {@code chunk} of object {@code key}, after its bytes are written.
   */
  void record(int slot, String key, long chunk, int length) throws IOException;
}
