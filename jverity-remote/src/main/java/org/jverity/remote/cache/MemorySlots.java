package org.jverity.remote.cache;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Slots in the heap, each allocated when first written: a cache of at most {@code slots} chunks
 * that ends with the process.
 */
final class MemorySlots implements SlotStore {
  private final int chunkSize;
  private final byte[][] slots;

  MemorySlots(int slots, int chunkSize) {
    this.chunkSize = chunkSize;
    this.slots = new byte[slots][];
  }

  @Override
  public List<Entry> entries() {
    return List.of();
  }

  @Override
  public void read(int slot, int from, ByteBuffer dst) {
    dst.put(slots[slot], from, dst.remaining());
  }

  @Override
  public void forget(int slot) {}

  @Override
  public void write(int slot, ByteBuffer bytes) {
    if (slots[slot] == null) {
      slots[slot] = new byte[chunkSize];
    }
    bytes.get(slots[slot], 0, bytes.remaining());
  }

  @Override
  public void record(int slot, String key, long chunk, int length) {}

  @Override
  public void close() {}
}
