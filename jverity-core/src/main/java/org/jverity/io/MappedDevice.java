package org.jverity.io;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A file or block device mapped whole, read-only, into memory: a read is a copy out of the page
 * cache with no system call. The size is fixed when it opens.
 *
 * <p>Thread-safe. The channel is closed right after mapping, so interrupts are irrelevant. {@link
 * #close()} waits for reads in flight, then unmaps; later reads throw an IOException. If the file
 * shrinks underneath, a read of the lost range throws an IOException (the JVM turns the SIGBUS into
 * an InternalError, translated here) instead of returning bytes.
 */
public final class MappedDevice implements BlockDevice {
  /**
   * Calls {@link #copy}. A SIGBUS in a copy (the file shrank) becomes an InternalError
   * <em>asynchronously</em>: HotSpot throws it at the thread's next safepoint poll, such as a
   * method return. Were the copy inlined into {@link #readFully}, that poll would be readFully's
   * own return and the error would escape into the caller. The JIT cannot inline through a method
   * handle that is not a constant, and a static field that is not final is never one: so the copy
   * stays a real call, and its return raises the error inside readFully's {@code try}.
   */
  private static MethodHandle copyCall = copyHandle(); // deliberately not final: see above

  /**
   * As {@link #copyCall}, into a heap array: the verified read path's hot call, with no buffer
   * made.
   */
  private static MethodHandle copyToArrayCall = copyToArrayHandle(); // not final either

  private final Path path;

  /** Owns the mapping; null for an empty file, which has none. */
  private final Arena arena;

  /** The whole file; {@link MemorySegment#NULL} (size 0) when empty. */
  private final MemorySegment bytes;

  private final CloseGate gate;

  private MappedDevice(Path path, Arena arena, MemorySegment bytes) {
    this.path = path;
    this.arena = arena;
    this.bytes = bytes;
    this.gate = new CloseGate(path.toString());
  }

  /**
   * Maps an existing file or block device.
   *
   * @throws IOException if it cannot be opened or mapped (some special files cannot)
   */
  public static MappedDevice open(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size == 0) {
        return new MappedDevice(path, null, MemorySegment.NULL);
      }
      Arena arena = Arena.ofShared();
      try {
        MemorySegment bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        return new MappedDevice(path, arena, bytes);
      } catch (IOException | RuntimeException e) {
        arena.close();
        throw e;
      }
    }
  }

  private static MethodHandle copyHandle() {
    try {
      return MethodHandles.lookup()
          .findStatic(
              MappedDevice.class,
              "copy",
              MethodType.methodType(
                  void.class, MemorySegment.class, long.class, MemorySegment.class, long.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static MethodHandle copyToArrayHandle() {
    try {
      return MethodHandles.lookup()
          .findStatic(
              MappedDevice.class,
              "copyToArray",
              MethodType.methodType(
                  void.class, MemorySegment.class, long.class, byte[].class, int.class, int.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public Path path() {
    return path;
  }

  @Override
  public String description() {
    return path.toString();
  }

  /** Size in bytes when it was opened. */
  @Override
  public long size() {
    return bytes.byteSize();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    int length = dst.remaining();
    if (dst.isReadOnly()) {
      throw new ReadOnlyBufferException();
    }
    checkRange(offset, length);
    gate.enter();
    try {
      copyCall.invokeExact(bytes, offset, MemorySegment.ofBuffer(dst), (long) length);
    } catch (InternalError e) { // "a fault occurred in an unsafe memory access operation": SIGBUS
      throw shrank(offset, e);
    } catch (Throwable e) {
      throw rethrow(e);
    } finally {
      gate.exit();
    }
    dst.position(dst.position() + length);
  }

  @Override
  public void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    Objects.checkFromIndexSize(dstOffset, length, dst.length);
    checkRange(offset, length);
    gate.enter();
    try {
      copyToArrayCall.invokeExact(bytes, offset, dst, dstOffset, length);
    } catch (InternalError e) { // "a fault occurred in an unsafe memory access operation": SIGBUS
      throw shrank(offset, e);
    } catch (Throwable e) {
      throw rethrow(e);
    } finally {
      gate.exit();
    }
  }

  private void checkRange(long offset, int length) throws EOFException {
    if (offset < 0) {
      throw new IllegalArgumentException(path + ": offset: " + offset + " (expected: >= 0)");
    }
    if (offset > bytes.byteSize() - length) {
      throw new EOFException(
          path
              + ": read of "
              + length
              + " bytes at "
              + offset
              + " (expected: end <= size "
              + bytes.byteSize()
              + ")");
    }
  }

  private IOException shrank(long offset, InternalError e) {
    return new IOException(
        path + ": read at " + offset + " failed: the file shrank underneath (truncated?)", e);
  }

  /** The copy {@link #copyToArrayCall} calls. */
  private static void copyToArray(
      MemorySegment src, long offset, byte[] dst, int dstOffset, int length) {
    MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
  }

  /** The copy {@link #copyCall} calls. */
  private static void copy(MemorySegment src, long offset, MemorySegment dst, long length) {
    MemorySegment.copy(src, offset, dst, 0, length);
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t); // copy throws no checked exception
  }

  /** Waits for reads in flight, then unmaps; idempotent. */
  @Override
  public void close() {
    if (gate.close() && arena != null) {
      arena.close();
    }
  }

  @Override
  public String toString() {
    return "MappedDevice[" + path + "]";
  }
}
