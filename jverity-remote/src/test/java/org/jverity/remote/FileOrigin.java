package org.jverity.remote;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.io.FileDevice;

/**
 * A real origin over a local file, for the device's and the cache's tests: it counts the range
 * requests it serves and can be told to fail, flip a byte, wait, or find its object replaced. The
 * object's version is {@link Stored#version}; a fetch of another version than the one pinned at
 * open is an {@link ObjectChangedException}, as an {@code If-Match} would be.
 */
final class FileOrigin implements Origin {
  /** The object as stored, shared by every origin opened on it (and reopened). */
  static final class Stored {
    final Path file;
    final AtomicInteger version = new AtomicInteger(1);
    final AtomicInteger requests = new AtomicInteger();
    final AtomicLong bytes = new AtomicLong();
    final AtomicInteger active = new AtomicInteger();
    final AtomicInteger maxActive = new AtomicInteger();
    final AtomicInteger failNext = new AtomicInteger();
    final AtomicLong largestRange = new AtomicLong();
    volatile long flipAt = -1; // an object offset whose byte every response flips; -1: none
    volatile long delayMillis;
    volatile CountDownLatch gate; // fetches wait for it to open; null: none

    Stored(Path file) {
      this.file = file;
    }

    /** Writes a new version of the object. */
    void replace(byte[] content) throws IOException {
      Files.write(file, content);
      version.incrementAndGet();
    }

    /** The cache key of the version stored now, as an origin opened now pins it. */
    String identityKey() throws IOException {
      return new ObjectIdentity("file://" + file, etag(), null, Files.size(file)).cacheKey();
    }

    String etag() {
      return "\"v" + version.get() + "\"";
    }
  }

  private final Stored stored;
  private final ObjectIdentity identity;
  private final RemoteStats stats;
  private final FileDevice file; // pread: an interrupted fetch leaves it open, as a socket pool

  FileOrigin(Stored stored, RemoteStats stats) throws IOException {
    this.stored = stored;
    this.stats = stats;
    this.file = FileDevice.openRead(stored.file);
    this.identity =
        new ObjectIdentity("file://" + stored.file, stored.etag(), null, Files.size(stored.file));
  }

  @Override
  public String description() {
    return identity.location();
  }

  @Override
  public ObjectIdentity identity() {
    return identity;
  }

  @Override
  public RemoteStats stats() {
    return stats;
  }

  @Override
  public Origin reopen() throws IOException {
    return new FileOrigin(stored, stats);
  }

  @Override
  public void fetch(long offset, ByteBuffer dst) throws IOException {
    int now = stored.active.incrementAndGet();
    stored.maxActive.accumulateAndGet(now, Math::max);
    stored.requests.incrementAndGet();
    stats.requests.increment();
    try {
      CountDownLatch g = stored.gate;
      if (g != null) {
        g.await();
      }
      if (stored.delayMillis > 0) {
        Thread.sleep(stored.delayMillis);
      }
      int n = dst.remaining();
      stored.largestRange.accumulateAndGet(n, Math::max);
      String range = "bytes " + offset + "-" + (offset + n - 1);
      if (!stored.etag().equals(identity.etag())) {
        throw new ObjectChangedException("data", identity, stored.etag());
      }
      if (stored.failNext.getAndUpdate(k -> Math.max(0, k - 1)) > 0) {
        throw new OriginException(description() + ": " + range + ": 503 (fault)", 503);
      }
      int start = dst.position();
      if (offset + n > file.size()) {
        throw new EOFException(description() + ": " + range + ": past the end");
      }
      file.readFully(offset, dst);
      long flip = stored.flipAt;
      if (flip >= offset && flip < offset + n) {
        int i = start + (int) (flip - offset);
        dst.put(i, (byte) (dst.get(i) ^ 0x01));
      }
      stored.bytes.addAndGet(n);
      stats.bytes.add(n);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OriginException(description() + ": interrupted", 0);
    } finally {
      stored.active.decrementAndGet();
    }
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
