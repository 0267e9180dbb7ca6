package org.jverity.server;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The three descriptor calls socket activation needs ({@code dup dup2 close}), bound with the FFM
 * API: Java has no other way to move a descriptor it did not open. Failures are an {@link
 * IOException} naming the call and errno. Thread-safe; bound on first use.
 */
final class Descriptors {
  private static final int EINTR = 4;

  private final MethodHandle dup;
  private final MethodHandle dup2;
  private final MethodHandle close;
  private final VarHandle errno;
  private final MemorySegment state;

  private Descriptors() {
    Linker linker = Linker.nativeLinker();
    SymbolLookup libc = linker.defaultLookup();
    var capture = Linker.Option.captureCallState("errno");
    var intOfInt = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    dup = linker.downcallHandle(libc.findOrThrow("dup"), intOfInt, capture);
    dup2 =
        linker.downcallHandle(
            libc.findOrThrow("dup2"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), capture);
    close = linker.downcallHandle(libc.findOrThrow("close"), intOfInt, capture);
    var layout = Linker.Option.captureStateLayout();
    errno = layout.varHandle(PathElement.groupElement("errno"));
    state = Arena.global().allocate(layout);
  }

  private static final class Holder {
    static final Descriptors INSTANCE = new Descriptors();
  }

  static Descriptors get() {
    return Holder.INSTANCE;
  }

  /** A new descriptor for {@code fd}'s socket or file. */
  synchronized int dup(int fd) throws IOException {
    try {
      return check("dup(" + fd + ")", (int) dup.invokeExact(state, fd));
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t); // never: no checked exceptions
    }
  }

  /** Makes {@code to} a copy of {@code from}, closing what {@code to} was. */
  synchronized void dup2(int from, int to) throws IOException {
    try {
      int r;
      do {
        r = (int) dup2.invokeExact(state, from, to);
      } while (r < 0 && errno() == EINTR);
      check("dup2(" + from + ", " + to + ")", r);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Closes once (on Linux the descriptor is gone even on EINTR). */
  synchronized void close(int fd) throws IOException {
    try {
      check("close(" + fd + ")", (int) close.invokeExact(state, fd));
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private int check(String call, int r) throws IOException {
    if (r < 0) {
      throw new IOException(call + ": failed (errno " + errno() + ")");
    }
    return r;
  }

  private int errno() {
    return (int) errno.get(state, 0L);
  }
}
