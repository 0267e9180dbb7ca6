package org.jverity.posix;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * The C library's calls, bound once per process with the FFM API: the file calls {@code
 * org.jverity.io.FileDevice} makes ({@code open pread pwrite fsync lseek close}), and the
 * descriptor calls the server's socket activation makes ({@code dup dup2}, bound at their first
 * use, so a file device's start pays nothing for them). Exported to the server only. Unlike a
 * {@code FileChannel}, nothing here reacts to {@link Thread#interrupt()}: an interrupted reader
 * neither stops nor closes the descriptor.
 *
 * <p>Calls return the C result, or {@code -errno} when it failed (the kernel's convention); calls
 * that fail with {@code EINTR} are retried. Bound only on 64-bit Linux and macOS, where {@code
 * off_t}, {@code size_t} and {@code ssize_t} are 64-bit and the flag values below are known.
 *
 * <p>Reads and writes into heap memory use a {@linkplain Linker.Option#critical(boolean) critical}
 * binding that passes the array itself, with no copy and no temporary direct buffer. The price: the
 * thread stays in Java state for the call, so a garbage collection waits until it returns. That is
 * microseconds from the page cache, but as long as the device takes on a cold read. Native segments
 * use an ordinary binding, which lets the JVM reach a safepoint during the call.
 *
 * <p>Thread-safe: stateless once bound; the errno buffer is per thread.
 */
public final class Posix {
  /** errno values 1..34 are the same on Linux and macOS. */
  public static final int EPERM = 1;

  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int EACCES = 13;

  private static final int SEEK_END = 2;
  private static final int MODE_0644 = 0644;

  private static final Optional<Posix> INSTANCE = bind();

  /** {@code O_*} flags, which differ between Linux and macOS. */
  private record Flags(int rdonly, int rdwr, int creat, int cloexec) {}

  private final Flags flags;
  private final MethodHandle open;
  private final MethodHandle preadNative;
  private final MethodHandle preadHeap;
  private final MethodHandle pwriteNative;
  private final MethodHandle pwriteHeap;
  private final MethodHandle fsync;
  private final MethodHandle lseek;
  private final MethodHandle close;
  private final MethodHandle strerror;
  private final VarHandle errno;

  /** Per thread, the buffer the linker copies errno into right after each call. */
  private final ThreadLocal<MemorySegment> callState;

  private Posix(Flags flags, Linker linker, SymbolLookup libc) {
    this.flags = flags;
    var capture = Linker.Option.captureCallState("errno");
    var critical = Linker.Option.critical(true);
    var io = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG);
    var intOfInt = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    // int open(const char *path, int flags, ...): the mode is the first variadic argument.
    open =
        linker.downcallHandle(
            libc.findOrThrow("open"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            capture,
            Linker.Option.firstVariadicArg(2));
    preadNative = linker.downcallHandle(libc.findOrThrow("pread"), io, capture);
    preadHeap = linker.downcallHandle(libc.findOrThrow("pread"), io, capture, critical);
    pwriteNative = linker.downcallHandle(libc.findOrThrow("pwrite"), io, capture);
    pwriteHeap = linker.downcallHandle(libc.findOrThrow("pwrite"), io, capture, critical);
    fsync = linker.downcallHandle(libc.findOrThrow("fsync"), intOfInt, capture);
    lseek =
        linker.downcallHandle(
            libc.findOrThrow("lseek"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT),
            capture);
    close = linker.downcallHandle(libc.findOrThrow("close"), intOfInt, capture);
    strerror =
        linker.downcallHandle(
            libc.findOrThrow("strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    var layout = Linker.Option.captureStateLayout();
    errno = layout.varHandle(PathElement.groupElement("errno"));
    callState = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(layout));
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
    try {
      Linker linker = Linker.nativeLinker();
      return Optional.of(new Posix(flags, linker, linker.defaultLookup()));
    } catch (RuntimeException e) { // IllegalCallerException: native access denied; missing symbol
      return Optional.empty();
    }
  }

  /** Opens read-only, or read-write creating it (mode 0644 less umask); never truncates. */
  public int open(String path, boolean write) {
    int how = (write ? flags.rdwr | flags.creat : flags.rdonly) | flags.cloexec;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment cPath = arena.allocateFrom(path);
      int r;
      do {
        r = (int) open.invokeExact(state(), cPath, how, MODE_0644);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Reads up to {@code dst.byteSize()} bytes at {@code offset}: the count, 0 at end of file. */
  public long pread(int fd, MemorySegment dst, long offset) {
    MethodHandle h = dst.isNative() ? preadNative : preadHeap;
    try {
      long r;
      do {
        r = (long) h.invokeExact(state(), fd, dst, dst.byteSize(), offset);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Writes up to {@code src.byteSize()} bytes at {@code offset}: the count written. */
  public long pwrite(int fd, MemorySegment src, long offset) {
    MethodHandle h = src.isNative() ? pwriteNative : pwriteHeap;
    try {
      long r;
      do {
        r = (long) h.invokeExact(state(), fd, src, src.byteSize(), offset);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int fsync(int fd) {
    try {
      int r;
      do {
        r = (int) fsync.invokeExact(state(), fd);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Size in bytes by seeking to the end: right for block devices too, where st_size is 0. */
  public long size(int fd) {
    try {
      long r = (long) lseek.invokeExact(state(), fd, 0L, SEEK_END);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Closes once: on Linux the descriptor is gone even when close reports EINTR, so no retry. */
  public int close(int fd) {
    try {
      int r = (int) close.invokeExact(state(), fd);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** A new descriptor for {@code fd}'s file or socket. */
  public int dup(int fd) {
    try {
      int r = (int) descriptorCalls().dup.invokeExact(state(), fd);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Makes {@code to} a copy of {@code from}, closing what {@code to} was; retried on EINTR. */
  public int dup2(int from, int to) {
    try {
      int r;
      do {
        r = (int) descriptorCalls().dup2.invokeExact(state(), from, to);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** dup and dup2, bound at the first call of either. */
  private record DescriptorCalls(MethodHandle dup, MethodHandle dup2) {}

  private volatile DescriptorCalls descriptorCalls;

  private DescriptorCalls descriptorCalls() {
    DescriptorCalls d = descriptorCalls;
    if (d == null) {
      Linker linker = Linker.nativeLinker();
      SymbolLookup libc = linker.defaultLookup();
      var capture = Linker.Option.captureCallState("errno");
      d =
          new DescriptorCalls(
              linker.downcallHandle(
                  libc.findOrThrow("dup"), FunctionDescriptor.of(JAVA_INT, JAVA_INT), capture),
              linker.downcallHandle(
                  libc.findOrThrow("dup2"),
                  FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                  capture));
      descriptorCalls = d; // a race binds twice, harmlessly: the handles are equivalent
    }
    return d;
  }

  /** "Input/output error (errno 5)". */
  public String describe(int errnoValue) {
    try {
      MemorySegment s = (MemorySegment) strerror.invokeExact(errnoValue);
      String text = s.equals(MemorySegment.NULL) ? "error" : s.reinterpret(1024).getString(0);
      return text + " (errno " + errnoValue + ")";
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private MemorySegment state() {
    return callState.get();
  }

  private int errno() {
    return (int) errno.get(state(), 0L);
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException("native call threw " + t, t); // never: no checked exceptions
  }
}
