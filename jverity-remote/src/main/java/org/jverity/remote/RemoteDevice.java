package org.jverity.remote;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jverity.io.BlockDevice;
import org.jverity.remote.cache.ChunkCache;

/**
 * A remote object as a {@link BlockDevice}: read in chunks ({@link RemoteOptions#chunkSize()}),
 * each from the shared {@link ChunkCache} when it has it, else fetched from the {@link Origin}.
 *
 * <ul>
 *   <li>Adjacent missing chunks of one read go out as one range request (up to {@link #MAX_RANGE});
 *       a chunk already being fetched is waited for, never asked twice.
 *   <li>{@link #prefetch} and read-ahead ({@link ReadAhead}) fetch on virtual threads, at most
 *       {@link RemoteOptions#parallel()} ranges at once per device; beyond that a hint is dropped.
 *       A read-ahead window goes out as ranges of {@link #AHEAD_RANGE} in parallel, so a client's
 *       requests in flight become requests in flight to the origin.
 *   <li>{@link #reread} fetches past the cache and rewrites the cached chunks: the verified
 *       reader's recheck heals a torn or tampered cache.
 *   <li>A fetch's failure fails the reads that needed it, as it was thrown (one line). An {@link
 *       ObjectChangedException} fails every later read at once, without asking the origin again;
 *       unless {@code onChange} is {@link RemoteOptions.OnChange#REOPEN}: then the origin is
 *       reopened once and, if the object kept its size, reads go on over the new version (the cache
 *       is keyed by identity, so no old chunk is read; the verified reader above says whether the
 *       new bytes are right).
 * </ul>
 *
 * <p>Thread-safe. Owns its origin; the cache belongs to the source that shares it.
 */
public final class RemoteDevice implements BlockDevice {
  private static final System.Logger LOG = System.getLogger(RemoteDevice.class.getName());

  /** The widest range one request asks for: a miss of more is split. */
  static final int MAX_RANGE = 8 << 20;

  /**
   * Asynchronous ranges (prefetch, read-ahead) a device may have started and not finished, per
   * request in flight the origin allows: they wait for the origin's permits as reads do, so more of
   * them only queue; fewer would drop the hints of an NBD client's many requests in flight, whose
   * pieces would then each fetch their own chunk. At most this many times {@code parallel} times
   * {@link #AHEAD_RANGE} bytes of buffers.
   */
  static final int ASYNC_PER_PARALLEL = 4;

  /** The range each parallel request of a read-ahead window asks for. */
  static final int AHEAD_RANGE = 1 << 20;

  /** How long close waits for the fetches it cancelled to end. */
  private static final long CLOSE_WAIT_SECONDS = 60;

  /** The object as pinned now, and the fetches in flight from it. */
  private record Pinned(
      Origin origin,
      ObjectIdentity identity,
      String key,
      ConcurrentHashMap<Long, ChunkFetch> inFlight) {
    Pinned(Origin origin) {
      this(origin, origin.identity(), origin.identity().cacheKey(), new ConcurrentHashMap<>());
    }
  }

  private final ChunkCache cache;
  private final RemoteOptions options;
  private final RemoteStats stats;
  private final int chunkSize;
  private final ReadAhead readAhead;
  private final Semaphore asyncRanges;
  private final ExecutorService async;
  private final List<Origin> retired = new ArrayList<>(); // replaced by a reopen; closed at close
  private final Object change = new Object(); // serializes reopen and latching
  private volatile Pinned pinned;
  private volatile IOException failure; // latched: every later read throws it
  private volatile boolean closed;
  private final ReopenListener reopens;

  public RemoteDevice(Origin origin, ChunkCache cache, RemoteOptions options, RemoteStats stats) {
    this(origin, cache, options, stats, ReopenListener.NONE);
  }

  /** As the other constructor, telling {@code reopens} of each object it reopens. */
  public RemoteDevice(
      Origin origin,
      ChunkCache cache,
      RemoteOptions options,
      RemoteStats stats,
      ReopenListener reopens) {
    if (cache.chunkSize() != options.chunkSize()) {
      throw new IllegalArgumentException(
          "cache chunk size " + cache.chunkSize() + " != options' " + options.chunkSize());
    }
    this.cache = cache;
    this.options = options;
    this.stats = stats;
    this.reopens = reopens;
    this.chunkSize = options.chunkSize();
    this.readAhead = new ReadAhead(options.readaheadMax() / chunkSize);
    this.asyncRanges = new Semaphore(ASYNC_PER_PARALLEL * Math.max(1, options.parallel()));
    this.async =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("jverity-fetch").factory());
    this.pinned = new Pinned(origin);
    keepOpening(pinned);
  }

  /**
   * Caches the first bytes the origin's open fetched (whole chunks, or the whole object), so the
   * first read there (a superblock, a first data block) is no second request.
   */
  private void keepOpening(Pinned p) {
    ByteBuffer b = p.origin().takeOpening();
    if (b == null || b.remaining() == 0 || cache.contains(p.key(), 0)) {
      return;
    }
    if (b.remaining() != p.identity().size()) {
      b.limit(b.position() + b.remaining() / chunkSize * chunkSize); // a torn last chunk: not kept
    }
    keep(p, 0, b.slice());
  }

  @Override
  public String description() {
    return pinned.origin().description();
  }

  @Override
  public long size() {
    return pinned.identity().size();
  }

  /** The identity reads are pinned to now (a new one after a reopen). */
  public ObjectIdentity identity() {
    return pinned.identity();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    Pinned p = current();
    int start = dst.position();
    try {
      read(p, offset, dst);
    } catch (ObjectChangedException e) {
      Pinned now = changed(p, e); // throws unless reopened
      dst.position(start);
      read(now, offset, dst);
    }
  }

  @Override
  public void reread(long offset, ByteBuffer dst) throws IOException {
    Pinned p = current();
    stats.rereads.increment();
    int start = dst.position();
    try {
      fetchPast(p, offset, dst);
    } catch (ObjectChangedException e) {
      Pinned now = changed(p, e);
      dst.position(start);
      fetchPast(now, offset, dst);
    }
  }

  @Override
  public void prefetch(long offset, long length) {
    try {
      Pinned p = pinned;
      long size = p.identity().size();
      if (closed || failure != null || length <= 0 || offset < 0 || offset >= size) {
        return;
      }
      long end = Math.min(size, offset + length);
      fetchAhead(p, offset / chunkSize, chunks(end), chunksIn(AHEAD_RANGE));
    } catch (RuntimeException e) {
      LOG.log(Level.DEBUG, "prefetch of " + description() + " dropped: " + e);
    }
  }

  /** The pinned object, unless a failure latched or the device is closed. */
  private Pinned current() throws IOException {
    IOException f = failure;
    if (f != null) {
      throw f;
    }
    if (closed) {
      throw new IOException(description() + ": closed");
    }
    return pinned;
  }

  private void read(Pinned p, long offset, ByteBuffer dst) throws IOException {
    int len = dst.remaining();
    checkRange(p, offset, len);
    if (len == 0) {
      return;
    }
    int base = dst.position();
    long first = offset / chunkSize;
    int n = (int) (chunks(offset + len) - first);
    ChunkFetch[] waits = new ChunkFetch[n]; // null: copied from the cache
    List<ChunkFetch> mine = new ArrayList<>();
    ChunkFetch run = null; // the run being built, while chunks keep missing
    boolean missed = false;
    try {
      for (int i = 0; i < n; i++) {
        long c = first + i;
        ChunkFetch f = p.inFlight().get(c);
        if (f == null && cache.read(p.key(), c, from(c, offset), piece(c, offset, dst, base))) {
          stats.cacheHits.increment();
          run = null;
          continue;
        }
        missed = true;
        if (f == null) {
          if (run == null || run.chunks * (long) chunkSize >= MAX_RANGE) {
            run = new ChunkFetch(c);
            mine.add(run);
          }
          f = p.inFlight().putIfAbsent(c, run);
          if (f == null) {
            run.chunks++;
            stats.cacheMisses.increment();
            f = run;
          } else {
            run = null; // someone else fetches it: a new run starts after it
          }
        } else {
          run = null;
        }
        waits[i] = f;
      }
      long[] ahead = readAhead.onRead(first, first + n - 1, missed);
      if (ahead != null) {
        long end = Math.min(ahead[1], chunks(p.identity().size()));
        long from = ahead[0];
        if (run != null && run.end() == from) {
          from = extend(p, run, from, end); // the window right after this read's own fetch
        }
        fetchAhead(p, from, end, chunksIn(AHEAD_RANGE));
      }
      for (ChunkFetch f : mine) {
        if (f.chunks > 0) {
          fetch(p, f);
        }
      }
    } finally {
      for (ChunkFetch f : mine) { // only on an unexpected throw: nobody is left waiting
        if (!f.done.isDone()) {
          f.done.completeExceptionally(new IOException(description() + ": read abandoned"));
          unclaim(p, f);
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (waits[i] != null) {
        long c = first + i;
        ByteBuffer bytes = await(waits[i]);
        int at = (int) ((c - waits[i].first) * chunkSize) + from(c, offset);
        ByteBuffer piece = piece(c, offset, dst, base);
        piece.put(bytes.slice(at, piece.remaining()));
      }
    }
    dst.position(base + len);
  }

  /**
   * Claims the free chunks from {@code c} on (up to {@code end}, and {@link #MAX_RANGE} in all) for
   * {@code run}, this read's own fetch, which ends at {@code c}: a window that opens right after a
   * miss goes out in the same request as the miss, as the kernel reads its first window, rather
   * than as a request of its own. Returns the first chunk not claimed.
   */
  private long extend(Pinned p, ChunkFetch run, long c, long end) {
    int most = chunksIn(MAX_RANGE);
    while (c < end
        && run.chunks < most
        && !cache.contains(p.key(), c)
        && p.inFlight().putIfAbsent(c, run) == null) {
      run.chunks++;
      c++;
    }
    return c;
  }

  /** Where in chunk {@code c} a read at {@code offset} starts. */
  private int from(long c, long offset) {
    return (int) Math.max(0, offset - c * chunkSize);
  }

  /** The part of {@code dst} (a read at {@code offset}) that chunk {@code c} fills. */
  private ByteBuffer piece(long c, long offset, ByteBuffer dst, int base) {
    long start = Math.max(offset, c * chunkSize);
    long end = Math.min(offset + (dst.limit() - base), (c + 1) * chunkSize);
    return dst.slice(base + (int) (start - offset), (int) (end - start));
  }

  /** Whole chunks in a range of {@code bytes}, at least one. */
  private int chunksIn(int bytes) {
    return Math.max(1, bytes / chunkSize);
  }

  /** Chunks that bytes {@code [0, end)} span. */
  private long chunks(long end) {
    return (end + chunkSize - 1) / chunkSize;
  }

  private void checkRange(Pinned p, long offset, int len) throws EOFException {
    long size = p.identity().size();
    if (offset < 0 || offset > size - len) {
      throw new EOFException(
          description() + ": " + len + " bytes at " + offset + " past its end (" + size + ")");
    }
  }

  /**
   * Starts fetches of the chunks in {@code [from, to)} that are neither cached nor in flight, in
   * runs of at most {@code runChunks}, each on its own virtual thread; drops the rest when {@link
   * RemoteOptions#parallel()} are in flight already. Never blocks.
   */
  private void fetchAhead(Pinned p, long from, long to, int runChunks) {
    long c = from;
    while (c < to && !closed) {
      if (p.inFlight().containsKey(c) || cache.contains(p.key(), c)) {
        c++;
        continue;
      }
      if (!asyncRanges.tryAcquire()) {
        return; // enough in flight: the hint is dropped
      }
      ChunkFetch f = new ChunkFetch(c);
      while (c < to
          && f.chunks < runChunks
          && !cache.contains(p.key(), c)
          && p.inFlight().putIfAbsent(c, f) == null) {
        f.chunks++;
        stats.cacheMisses.increment();
        c++;
      }
      if (f.chunks == 0) {
        asyncRanges.release();
        continue;
      }
      try {
        async.execute(
            () -> {
              try {
                fetch(p, f);
              } finally {
                asyncRanges.release();
              }
            });
      } catch (RejectedExecutionException e) { // closing
        asyncRanges.release();
        f.done.completeExceptionally(new IOException(description() + ": closed"));
        unclaim(p, f);
        return;
      }
    }
  }

  /**
   * Runs fetch {@code f}: one range request; its chunks go into the cache, then to whoever waits.
   * Never throws: the future carries the failure.
   */
  private void fetch(Pinned p, ChunkFetch f) {
    try {
      long start = f.first * chunkSize;
      long end = Math.min(p.identity().size(), f.end() * chunkSize);
      ByteBuffer bytes = ByteBuffer.allocate((int) (end - start));
      p.origin().fetch(start, bytes);
      keep(p, f.first, bytes.clear());
      f.done.complete(bytes.asReadOnlyBuffer());
    } catch (IOException e) {
      if (e instanceof ObjectChangedException oc) {
        try {
          changed(p, oc);
        } catch (IOException latched) {
          // latched: the waiters get the change as thrown
        }
      }
      f.done.completeExceptionally(e);
    } catch (RuntimeException | Error e) {
      f.done.completeExceptionally(e);
      throw e;
    } finally {
      unclaim(p, f);
    }
  }

  /** Puts the chunks of {@code bytes} (all of it, from chunk {@code first}) into the cache. */
  private void keep(Pinned p, long first, ByteBuffer bytes) {
    for (int at = 0; at < bytes.limit(); at += chunkSize) {
      int n = Math.min(chunkSize, bytes.limit() - at);
      cache.write(p.key(), first + at / chunkSize, bytes.slice(at, n), stats);
    }
  }

  private static void unclaim(Pinned p, ChunkFetch f) {
    for (long c = f.first; c < f.end(); c++) {
      p.inFlight().remove(c, f);
    }
  }

  private ByteBuffer await(ChunkFetch f) throws IOException {
    try {
      return f.done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(description() + ": read interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new UncheckedIOException(new IOException(cause));
    }
  }

  /**
   * The recheck's read: exactly the bytes asked, from the origin, past the cache. The chunks the
   * range covers whole are replaced with the fresh bytes; a chunk it covers in part is dropped, so
   * its next read fetches it whole. A recheck of one 4 KiB block costs 4 KiB, not a chunk, and a
   * chunk with many bad blocks is not fetched again once per block.
   */
  private void fetchPast(Pinned p, long offset, ByteBuffer dst) throws IOException {
    int len = dst.remaining();
    checkRange(p, offset, len);
    int base = dst.position();
    p.origin().fetch(offset, dst.duplicate());
    long end = offset + len;
    long size = p.identity().size();
    for (long c = offset / chunkSize; c < chunks(end); c++) {
      long chunkStart = c * chunkSize;
      long chunkEnd = Math.min(size, chunkStart + chunkSize);
      if (chunkStart >= offset && chunkEnd <= end) {
        ByteBuffer fresh =
            dst.duplicate()
                .limit(base + (int) (chunkEnd - offset))
                .position(base + (int) (chunkStart - offset));
        cache.write(p.key(), c, fresh, stats);
      } else {
        cache.drop(p.key(), c);
      }
    }
    dst.position(base + len);
  }

  /**
   * The object changed under {@code p}: latches {@code e}, or (REOPEN) pins the object as it is now
   * if its size is the same, once for all the reads that saw the change. Returns what to read from
   * now, or throws the latched failure.
   */
  private Pinned changed(Pinned p, ObjectChangedException e) throws IOException {
    synchronized (change) {
      if (failure != null) {
        throw failure;
      }
      if (pinned != p) {
        return pinned; // another read reopened it already
      }
      if (options.onChange() != RemoteOptions.OnChange.REOPEN || closed) {
        failure = e;
        throw e;
      }
      Origin fresh;
      try {
        fresh = p.origin().reopen();
      } catch (IOException again) {
        e.addSuppressed(again);
        failure = e;
        throw e;
      }
      if (fresh.identity().size() != p.identity().size()) {
        LOG.log(
            Level.WARNING,
            e.getMessage()
                + "; reopened at size "
                + fresh.identity().size()
                + ", not "
                + p.identity().size()
                + ": failing");
        closeQuietly(fresh);
        failure = e;
        throw e;
      }
      LOG.log(
          Level.INFO,
          e.getMessage() + "; reopened, reading " + fresh.identity().etag() + " from now on");
      retired.add(p.origin());
      pinned = new Pinned(fresh);
      keepOpening(pinned);
      reopens.reopened(p.identity(), pinned.identity());
      return pinned;
    }
  }

  /** Cancels the fetches it started and waits for them; then closes its origins. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    async.shutdownNow();
    try {
      if (!async.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        LOG.log(Level.WARNING, description() + ": fetches still running after close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (change) {
      for (Origin o : retired) {
        closeQuietly(o);
      }
      pinned.origin().close();
    }
  }

  private static void closeQuietly(Origin o) {
    try {
      o.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "closing " + o.description() + ": " + e);
    }
  }
}
