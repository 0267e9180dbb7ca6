package org.jverity.cli.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;

/**
 * A cache directory as the tests look at it from outside (the layout of jverity-remote's {@code
 * DiskSlots}: {@code index} is a 64-byte header, then one 64-byte record per slot starting with
 * "JVCK"; slot s's bytes sit at {@code s * chunk} in {@code chunks}).
 */
final class CacheIndex {
  static final int CHUNK = 64 << 10; // RemoteOptions.DEFAULTS.chunkSize()
  private static final int RECORD_MAGIC = 0x4a56434b; // "JVCK"

  private CacheIndex() {}

  /** Slots recorded in {@code dir/index}: chunks a later run may take from the cache. */
  static int recorded(Path dir) throws IOException {
    Path index = dir.resolve("index");
    if (!Files.exists(index)) {
      return 0;
    }
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(index));
    int n = 0;
    for (int at = 64; at + 64 <= b.limit(); at += 64) {
      if (b.getInt(at) == RECORD_MAGIC) {
        n++;
      }
    }
    return n;
  }

  /** The recorded slots' numbers. */
  static int[] slots(Path dir) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("index")));
    return IntStream.range(0, (b.limit() - 64) / 64)
        .filter(s -> b.getInt(64 + s * 64) == RECORD_MAGIC)
        .toArray();
  }
}
