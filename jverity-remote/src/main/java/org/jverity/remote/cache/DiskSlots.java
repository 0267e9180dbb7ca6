package org.jverity.remote.cache;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Slots in a directory, kept across restarts:
 *
 * <pre>
 * DIR/lock    held (an exclusive file lock) while a process uses the directory; holds its pid
 * DIR/chunks  slot s at byte s * chunkSize; a sparse file, never longer than slots * chunkSize
 * DIR/index   header (64 bytes): magic "JVCACHE1", chunk size, slots
 *             then one 64-byte record per slot: magic "JVCK", length, chunk, key (32 bytes), CRC-32C
 * </pre>
 *
 * <p>A slot is rewritten as forget (its record zeroed) → write the bytes → record them, so a
 * process killed part-way leaves a slot with no record, never a record over torn bytes. A record is
 * one aligned 64-byte write within a page; its CRC drops one that a crash or a hand garbled. At
 * open, records whose bytes lie past the end of {@code chunks} are dropped; an index of another
 * geometry (a new chunk size or bound) starts the cache empty. The bytes themselves are not checked
 * here: the verified reader checks every block, and its recheck refetches a bad one.
 *
 * <p>One process per directory: the lock refuses a second (two servers over one bucket each have
 * their own directory), naming the holder's pid. A restart right after the previous process was
 * stopped waits (up to {@link #HOLDER_ENDING}) for that process to end and release the lock.
 *
 * <p>The three files are opened without following links, and only as regular files with no other
 * hard links: the cache truncates them, which through a link would cut a file elsewhere. Anything
 * else there is refused ({@link UnusableCacheException}) and left as it is.
 */
final class DiskSlots implements SlotStore {
  private static final long MAGIC = 0x4a56434143484531L; // "JVCACHE1"
  private static final int RECORD_MAGIC = 0x4a56434b; // "JVCK"
  private static final int HEADER = 64; // bytes before the first record
  private static final int RECORD = 64; // bytes per record
  private static final int KEY = 32; // bytes of a key: ObjectIdentity.cacheKey() is SHA-256 hex

  /** How long a start waits for a lock whose holder is ending (a stop, then a start at once). */
  static final Duration HOLDER_ENDING = Duration.ofSeconds(10);

  private final Path dir;
  private final int slots;
  private final int chunkSize;
  private final FileChannel lockFile;
  private final FileLock lock;
  private final FileChannel chunks;
  private final FileChannel index;

  private DiskSlots(
      Path dir,
      int slots,
      int chunkSize,
      FileChannel lockFile,
      FileLock lock,
      FileChannel chunks,
      FileChannel index) {
    this.dir = dir;
    this.slots = slots;
    this.chunkSize = chunkSize;
    this.lockFile = lockFile;
    this.lock = lock;
    this.chunks = chunks;
    this.index = index;
  }

  /**
   * Opens (or creates) the cache in {@code dir}.
   *
   * @throws IOException when the directory cannot be used, or another process uses it
   */
  static DiskSlots open(Path dir, int slots, int chunkSize) throws IOException {
    Files.createDirectories(dir);
    FileChannel lockFile = openRegular(dir.resolve("lock"));
    FileChannel chunks = null;
    FileChannel index = null;
    try {
      FileLock lock = lock(dir, lockFile);
      ByteBuffer pid =
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII));
      lockFile.truncate(0);
      writeFully(lockFile, pid, 0);
      chunks = openRegular(dir.resolve("chunks"));
      index = openRegular(dir.resolve("index"));
      DiskSlots s = new DiskSlots(dir, slots, chunkSize, lockFile, lock, chunks, index);
      s.checkGeometry();
      return s;
    } catch (IOException | RuntimeException e) {
      closeQuietly(index);
      closeQuietly(chunks);
      closeQuietly(lockFile); // releases the lock
      throw e;
    }
  }

  /**
   * The directory's lock; when another process holds it, waits while that process is ending (a
   * server stopped, then started again at once: the old one still flushes and closes), then refuses
   * naming it.
   */
  private static FileLock lock(Path dir, FileChannel lockFile) throws IOException {
    long deadline = System.nanoTime() + HOLDER_ENDING.toNanos();
    long holder = -1;
    while (true) {
      FileLock lock;
      try {
        lock = lockFile.tryLock();
      } catch (OverlappingFileLockException e) {
        throw new IOException("cache directory " + dir + ": in use by another cache");
      }
      if (lock != null) {
        return lock;
      }
      long now = holder(lockFile);
      Optional<ProcessHandle> p = now > 0 ? ProcessHandle.of(now) : Optional.empty();
      if (now == holder && (p.isEmpty() || !ending(p.get())) || System.nanoTime() > deadline) {
        throw new IOException(
            "cache directory "
                + dir
                + ": in use by another cache"
                + (now > 0 ? " (process " + now + ")" : ""));
      }
      holder = now;
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("cache directory " + dir + ": interrupted waiting for its lock");
      }
    }
  }

  /**
   * Whether {@code p} is on its way out: its JVM runs shutdown hooks when a signal stopped it,
   * which a thread named for them shows; elsewhere, only its end tells.
   */
  private static boolean ending(ProcessHandle p) {
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(p.pid()), "task"))) {
      for (Path t : tasks) {
        String state = Files.readString(t.resolve("stat"));
        String comm = Files.readString(t.resolve("comm")).strip();
        if (comm.equals("SIGTERM handler")
            || comm.equals("SIGINT handler")
            || state.contains(") Z")) {
          return true;
        }
      }
    } catch (IOException | RuntimeException e) {
      return !p.isAlive(); // gone meanwhile: ending
    }
    return false;
  }

  /** The pid the holder wrote into the lock file; -1 when none is there (yet). */
  private static long holder(FileChannel lockFile) {
    try {
      ByteBuffer b = ByteBuffer.allocate(24);
      readFully(lockFile, b, 0);
      String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
      return s.isEmpty() ? -1 : Long.parseLong(s);
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Opens (creating) a file of the cache, never through a link, and only a regular file of its own:
   * the cache truncates it.
   */
  private static FileChannel openRegular(Path file) throws IOException {
    try {
      BasicFileAttributes a =
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      String what =
          a.isSymbolicLink()
              ? "a symbolic link"
              : a.isDirectory() ? "a directory" : a.isRegularFile() ? null : "not a regular file";
      if (what == null
          && ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue()
              > 1) {
        what = "a file with other hard links";
      }
      if (what != null) {
        throw new UnusableCacheException(
            file + ": " + what + " (expected: a regular file of the cache's own)");
      }
    } catch (NoSuchFileException e) {
      // created by the open
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      // no link counts here: the no-follow open still refuses a link
    }
    try {
      return FileChannel.open(
          file,
          StandardOpenOption.CREATE,
          StandardOpenOption.READ,
          StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    } catch (FileSystemException e) {
      if (Files.isSymbolicLink(file)) { // made between the check and the open
        throw new UnusableCacheException(
            file + ": a symbolic link (expected: a regular file of the cache's own)");
      }
      throw e;
    }
  }

  /** Keeps the index if it was written for this geometry; else starts both files empty. */
  private void checkGeometry() throws IOException {
    ByteBuffer h = ByteBuffer.allocate(HEADER);
    readFully(index, h, 0);
    h.flip();
    boolean same =
        h.remaining() == HEADER
            && h.getLong(0) == MAGIC
            && h.getInt(8) == chunkSize
            && h.getInt(12) == slots;
    if (!same) {
      chunks.truncate(0);
      index.truncate(0);
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      header.putLong(0, MAGIC).putInt(8, chunkSize).putInt(12, slots);
      writeFully(index, header, 0);
    }
    long max = (long) slots * chunkSize;
    if (chunks.size() > max) {
      chunks.truncate(max);
    }
    long records = HEADER + (long) slots * RECORD;
    if (index.size() > records) {
      index.truncate(records);
    }
  }

  @Override
  public List<Entry> entries() throws IOException {
    List<Entry> found = new ArrayList<>();
    long have = chunks.size();
    ByteBuffer all = ByteBuffer.allocate(RECORD * 1024);
    for (int first = 0; first < slots; first += 1024) {
      int n = Math.min(1024, slots - first);
      all.clear().limit(n * RECORD);
      readFully(index, all, HEADER + (long) first * RECORD);
      int got = all.position() / RECORD;
      for (int i = 0; i < got; i++) {
        int slot = first + i;
        Entry e = decode(slot, all.slice(i * RECORD, RECORD));
        if (e != null && (long) slot * chunkSize + e.length() <= have) {
          found.add(e);
        } else if (e != null || !zero(all, i * RECORD)) {
          forget(slot); // garbled, or its bytes were cut off: a clean miss from now on
        }
      }
      if (got < n) {
        break; // the index ends here: the slots after it never held anything
      }
    }
    return found;
  }

  private Entry decode(int slot, ByteBuffer r) {
    if (r.getInt(0) != RECORD_MAGIC || crc(r) != r.getInt(48)) {
      return null;
    }
    int length = r.getInt(4);
    long chunk = r.getLong(8);
    if (length <= 0 || length > chunkSize || chunk < 0) {
      return null;
    }
    byte[] key = new byte[KEY];
    r.get(16, key);
    return new Entry(slot, HexFormat.of().formatHex(key), chunk, length);
  }

  private static boolean zero(ByteBuffer b, int at) {
    for (int i = at; i < at + RECORD; i++) {
      if (b.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  private static int crc(ByteBuffer record) {
    CRC32C c = new CRC32C();
    c.update(record.slice(0, 48));
    return (int) c.getValue();
  }

  @Override
  public void read(int slot, int from, ByteBuffer dst) throws IOException {
    long at = (long) slot * chunkSize + from;
    while (dst.hasRemaining()) {
      int n = chunks.read(dst, at);
      if (n < 0) {
        throw new EOFException(dir + ": slot " + slot + " cut short");
      }
      at += n;
    }
  }

  @Override
  public void forget(int slot) throws IOException {
    writeFully(index, ByteBuffer.allocate(RECORD), recordAt(slot));
  }

  @Override
  public void write(int slot, ByteBuffer bytes) throws IOException {
    writeFully(chunks, bytes, (long) slot * chunkSize);
  }

  @Override
  public void record(int slot, String key, long chunk, int length) throws IOException {
    byte[] k = HexFormat.of().parseHex(key);
    if (k.length != KEY) {
      throw new IllegalArgumentException("cache key: " + key + " (expected: 64 hex digits)");
    }
    ByteBuffer r = ByteBuffer.allocate(RECORD);
    r.putInt(0, RECORD_MAGIC).putInt(4, length).putLong(8, chunk).put(16, k);
    r.putInt(48, crc(r));
    writeFully(index, r, recordAt(slot));
  }

  private static long recordAt(int slot) {
    return HEADER + (long) slot * RECORD;
  }

  private static void readFully(FileChannel ch, ByteBuffer dst, long at) throws IOException {
    while (dst.hasRemaining()) {
      int n = ch.read(dst, at);
      if (n < 0) {
        return; // the caller sees how much came
      }
      at += n;
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer src, long at) throws IOException {
    while (src.hasRemaining()) {
      at += ch.write(src, at);
    }
  }

  @Override
  public void close() throws IOException {
    closeQuietly(index);
    closeQuietly(chunks);
    try {
      lock.release();
    } finally {
      lockFile.close();
    }
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException ignored) {
        // closing: nothing left to do with it
      }
    }
  }
}
