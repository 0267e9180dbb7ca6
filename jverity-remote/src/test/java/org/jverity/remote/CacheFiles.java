package org.jverity.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HexFormat;

/** What a test does to a cache directory behind the cache's back (the layout of DiskSlots). */
final class CacheFiles {
  private CacheFiles() {}

  /** Flips one byte of slot {@code slot}'s bytes, at {@code at} in it. */
  static void flip(Path dir, int slot, int at) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            dir.resolve("chunks"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long pos = (long) slot * RemoteFixture.CHUNK + at;
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, pos);
      b.put(0, (byte) (b.get(0) ^ 0xff));
      ch.write(b.rewind(), pos);
    }
  }

  /** The slot holding chunk {@code chunk} of object {@code key}, by the index; -1 when none. */
  static int slotOf(Path dir, String key, long chunk) throws IOException {
    ByteBuffer index = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("index")));
    byte[] k = HexFormat.of().parseHex(key);
    for (int slot = 0; 64 + (slot + 1) * 64 <= index.limit(); slot++) {
      ByteBuffer r = index.slice(64 + slot * 64, 64);
      byte[] rk = new byte[32];
      r.get(16, rk);
      if (r.getInt(0) == 0x4a56434b && r.getLong(8) == chunk && Arrays.equals(rk, k)) {
        return slot;
      }
    }
    return -1;
  }

  /** Bytes the directory's files take, by their lengths, but the lock's (its holder's pid). */
  static long size(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      long sum = 0;
      for (Path f : (Iterable<Path>) files::iterator) {
        sum += f.getFileName().toString().equals("lock") ? 0 : Files.size(f);
      }
      return sum;
    }
  }
}
