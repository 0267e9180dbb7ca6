package org.jverity.posix;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.Optional;
import org.jverity.internal.NativeLibrary;

/**
 * The C library's calls, bound once per process: the file calls {@code org.jverity.io.FileDevice}
 * makes ({@code open pread pwrite fsync lseek close}), and the descriptor calls the server's socket
 * activation makes ({@code dup dup2}). Through libjverity.so where it is loaded ({@link JniCalls}),
 * else with the FFM API ({@link FfmCalls}, whose stubs cost ~60 ms at the first use). Exported to
 * the server only. Unlike a {@code FileChannel}, nothing here reacts to {@link Thread#interrupt()}:
 * an interrupted reader neither stops nor closes the descriptor.
 *
 * <p>Calls return the C result, or {@code -errno} when it failed (the kernel's convention); calls
 * that fail with {@code EINTR} are retried. Bound only on 64-bit Linux and macOS, where {@code
 * off_t}, {@code size_t} and {@code ssize_t} are 64-bit and the flag values below are known. Reads
 * and writes pass a heap array to the kernel itself, pinned for the call (a collection waits for
 * it), with no copy.
 *
 * <p>Thread-safe: stateless once bound.
 */
public final class Posix {
  /** errno values 1..34 are the same on Linux and macOS. */
  public static final int EPERM = 1;

  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int EACCES = 13;

  private static final int MODE_0644 = 0644;

  private static final Optional<Posix> INSTANCE = bind();

  /** {@code O_*} flags, which differ between Linux and macOS. */
  private record Flags(int rdonly, int rdwr, int creat, int cloexec) {}

  private final Flags flags;
  private final Calls calls;

  private Posix(Flags flags, Calls calls) {
    this.flags = flags;
    this.calls = calls;
  }

  /** The bound calls, or empty on other platforms or when native access is denied. */
  public static Optional<Posix> get() {
    return INSTANCE;
  }

  private static Optional<Posix> bind() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
      return Optional.empty();
    }
    Flags flags;
    if (os.equals("linux")) {
      flags = new Flags(0, 2, 0100, 02000000);
    } else if (os.startsWith("mac")) {
      flags = new Flags(0, 2, 0x200, 0x1000000);
    } else {
      return Optional.empty();
    }
    if (NativeLibrary.loaded()) {
      return Optional.of(new Posix(flags, new JniCalls()));
    }
    try {
      return Optional.of(new Posix(flags, new FfmCalls()));
    } catch (RuntimeException e) { // IllegalCallerException: native access denied; missing symbol
      return Optional.empty();
    }
  }

  /** Opens read-only, or read-write creating it (mode 0644 less umask); never truncates. */
  public int open(String path, boolean write) {
    int how = (write ? flags.rdwr | flags.creat : flags.rdonly) | flags.cloexec;
    return calls.open(path, how, MODE_0644);
  }

  /** Reads up to {@code dst.byteSize()} bytes at {@code offset}: the count, 0 at end of file. */
  public long pread(int fd, MemorySegment dst, long offset) {
    return calls.pread(fd, dst, offset);
  }

  /** Writes up to {@code src.byteSize()} bytes at {@code offset}: the count written. */
  public long pwrite(int fd, MemorySegment src, long offset) {
    return calls.pwrite(fd, src, offset);
  }

  public int fsync(int fd) {
    return calls.fsync(fd);
  }

  /** Size in bytes by seeking to the end: right for block devices too, where st_size is 0. */
  public long size(int fd) {
    return calls.seekEnd(fd);
  }

  /** Closes once: on Linux the descriptor is gone even when close reports EINTR, so no retry. */
  public int close(int fd) {
    return calls.close(fd);
  }

  /** A new descriptor for {@code fd}'s file or socket. */
  public int dup(int fd) {
    return calls.dup(fd);
  }

  /** Makes {@code to} a copy of {@code from}, closing what {@code to} was; retried on EINTR. */
  public int dup2(int from, int to) {
    return calls.dup2(from, to);
  }

  /** "Input/output error (errno 5)". */
  public String describe(int errnoValue) {
    String text = calls.strerror(errnoValue);
    return (text == null ? "error" : text) + " (errno " + errnoValue + ")";
  }
}
