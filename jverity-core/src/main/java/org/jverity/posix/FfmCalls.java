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

/**
 * The calls bound with the FFM API, where libjverity.so is not loaded: no compiler was at the
 * build, or {@code JVERITY_NATIVE=off}. Binding costs a process ~60 ms at the first use (the linker
 * generates a stub per call), so {@code dup} and {@code dup2}, which only socket activation makes,
 * are bound at their first call.
 *
 * <p>Reads and writes into heap memory use a {@linkplain Linker.Option#critical(boolean) critical}
 * binding that passes the array itself, with no copy and no temporary direct buffer. The price: the
 * thread stays in Java state for the call, so a garbage collection waits until it returns. That is
 * microseconds from the page cache, but as long as the device takes on a cold read. Native segments
 * use an ordinary binding, which lets the JVM reach a safepoint during the call.
 */
final class FfmCalls implements Calls {
  private static final int EINTR = 4;

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

  /**
   * Throws (IllegalCallerException: native access denied; a missing symbol) when it cannot bind.
   */
  FfmCalls() {
    Linker linker = Linker.nativeLinker();
    SymbolLookup libc = linker.defaultLookup();
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

  @Override
  public int open(String path, int flags, int mode) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment cPath = arena.allocateFrom(path);
      int r;
      do {
        r = (int) open.invokeExact(state(), cPath, flags, mode);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
  public long pread(int fd, MemorySegment dst, long offset) {
    return io(dst.isNative() ? preadNative : preadHeap, fd, dst, offset);
  }

  @Override
  public long pwrite(int fd, MemorySegment src, long offset) {
    return io(src.isNative() ? pwriteNative : pwriteHeap, fd, src, offset);
  }

  private long io(MethodHandle h, int fd, MemorySegment buffer, long offset) {
    try {
      long r;
      do {
        r = (long) h.invokeExact(state(), fd, buffer, buffer.byteSize(), offset);
      } while (r < 0 && errno() == EINTR);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
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

  @Override
  public long seekEnd(int fd) {
    try {
      long r = (long) lseek.invokeExact(state(), fd, 0L, 2); // SEEK_END, 2 on Linux and macOS
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
  public int close(int fd) {
    try {
      int r = (int) close.invokeExact(state(), fd);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
  public int dup(int fd) {
    try {
      int r = (int) descriptorCalls().dup.invokeExact(state(), fd);
      return r < 0 ? -errno() : r;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
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

  @Override
  public String strerror(int errnoValue) {
    try {
      MemorySegment s = (MemorySegment) strerror.invokeExact(errnoValue);
      return s.equals(MemorySegment.NULL) ? null : s.reinterpret(1024).getString(0);
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
