package org.jverity.remote;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;

/**
 * A process that reads an object through a small disk cache forever, so the cache is always being
 * rewritten (evictions): {@link CacheKillTest} kills it with SIGKILL mid-write. Args: the object's
 * file, the cache directory, the cache's bound in bytes.
 */
final class CacheWriter {
  private CacheWriter() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    RemoteOptions o = RemoteFixture.options(Path.of(args[1]), Long.parseLong(args[2]), 0);
    RemoteSource source = new RemoteSource(o);
    RemoteDevice d = source.device(new FileOrigin(new FileOrigin.Stored(file), source.stats()));
    Random r = new Random();
    ByteBuffer buf = ByteBuffer.allocate(3 * RemoteFixture.CHUNK);
    for (long i = 0; ; i++) {
      int n = 1 + r.nextInt(buf.capacity());
      long at = r.nextLong(d.size() - n + 1);
      d.readFully(at, buf.clear().limit(n));
      if (i == 200) {
        System.out.println("ready");
        System.out.flush();
      }
    }
  }
}
