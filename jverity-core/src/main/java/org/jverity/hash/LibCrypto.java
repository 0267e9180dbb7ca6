package org.jverity.hash;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The system's libcrypto (OpenSSL 1.1 or 3), bound lazily: its one-shot-free SHA functions ({@code
 * SHA256_Init/Update/Final}, and the same for SHA-1, SHA-224, SHA-384 and SHA-512), which OpenSSL 3
 * still exports and which run its fastest code for the CPU.
 *
 * <p>Used only when asked for ({@code -Djverity.digest=libcrypto}): measured on a 2-core Xeon with
 * SHA-NI, it hashes 4 KiB blocks at ~950 MB/s against the JDK's ~1,200 MB/s once compiled (three
 * downcalls per block), and binding it adds ~70 ms to a process, more than the JDK's warm-up costs.
 * Each algorithm is self-tested against the JDK on binding, with inputs of several lengths: a
 * library whose state layout or results differ is never used.
 */
final class LibCrypto {
  /** Longs of hash state: OpenSSL's largest context, SHA512_CTX, is 216 bytes; room to spare. */
  static final int STATE_LONGS = 40;

  /** {@code -Djverity.digest}: {@code jdk} (the default) or {@code libcrypto}. */
  static final String MODE = System.getProperty("jverity.digest", "jdk");

  private static final Map<String, Optional<Functions>> BOUND = new HashMap<>();

  private LibCrypto() {}

  /**
   * Bytes per update call. The calls are critical (they take heap arrays in place, and the JVM
   * cannot stop the thread for a garbage collection until they return), so each is kept short: 256
   * KiB hash in about 0.2 ms.
   */
  static final int MAX_CALL_BYTES = 256 << 10;

  /**
   * One algorithm's three functions, bound as critical calls: the state is a heap array, and the
   * data may be a heap array or native memory (a direct buffer, a mapped file).
   */
  record Functions(
      int digestSize, MethodHandle initHeap, MethodHandle updateHeap, MethodHandle finalHeap) {
    void init(long[] state) {
      try {
        check((int) initHeap.invokeExact(MemorySegment.ofArray(state)));
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    void update(long[] state, byte[] data, int offset, int length) {
      update(state, MemorySegment.ofArray(data).asSlice(offset, length));
    }

    /** Hashes a direct buffer's remaining bytes in place (its position is left alone). */
    void update(long[] state, ByteBuffer direct) {
      update(state, MemorySegment.ofBuffer(direct));
    }

    private void update(long[] state, MemorySegment data) {
      MemorySegment s = MemorySegment.ofArray(state);
      try {
        for (long at = 0, size = data.byteSize(); at < size; at += MAX_CALL_BYTES) {
          long n = Math.min(MAX_CALL_BYTES, size - at);
          check((int) updateHeap.invokeExact(s, data.asSlice(at, n), n));
        }
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    void finish(long[] state, byte[] out, int offset) {
      try {
        check(
            (int)
                finalHeap.invokeExact(
                    MemorySegment.ofArray(out).asSlice(offset, digestSize),
                    MemorySegment.ofArray(state)));
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    private static void check(int result) {
      if (result != 1) { // OpenSSL returns 1 on success; these cannot fail on valid arguments
        throw new IllegalStateException("libcrypto hash call failed: " + result);
      }
    }

    private static RuntimeException rethrow(Throwable t) {
      if (t instanceof RuntimeException r) {
        return r;
      }
      if (t instanceof Error e) {
        throw e;
      }
      return new IllegalStateException(t);
    }
  }

  /**
   * The functions of {@code algorithm}, bound on first use; empty when libcrypto is not to be used.
   */
  static synchronized Optional<Functions> functions(Algorithm algorithm) {
    return BOUND.computeIfAbsent(algorithm.opensslName(), n -> bind(algorithm));
  }

  /**
   * A hash by its names: {@code jcaName} for the JDK ("SHA-256"), {@code opensslName} for the
   * prefix of libcrypto's functions ("SHA256").
   */
  record Algorithm(String jcaName, String opensslName, int digestSize) {}

  private static Optional<Functions> bind(Algorithm algorithm) {
    try {
      Optional<SymbolLookup> lib = library();
      if (lib.isEmpty()) {
        return fail(algorithm, "no libcrypto found");
      }
      String prefix = algorithm.opensslName();
      Linker linker = Linker.nativeLinker();
      Linker.Option critical = Linker.Option.critical(true);
      SymbolLookup l = lib.get();
      var init = l.find(prefix + "_Init");
      var update = l.find(prefix + "_Update");
      var fin = l.find(prefix + "_Final");
      if (init.isEmpty() || update.isEmpty() || fin.isEmpty()) {
        return fail(algorithm, "libcrypto lacks " + prefix + "_Init/Update/Final");
      }
      var updateType = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
      Functions f =
          new Functions(
              algorithm.digestSize(),
              linker.downcallHandle(init.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS), critical),
              linker.downcallHandle(update.get(), updateType, critical),
              linker.downcallHandle(
                  fin.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), critical));
      if (!agreesWithJdk(algorithm, f)) {
        return fail(algorithm, "libcrypto's " + prefix + " disagrees with the JDK");
      }
      return Optional.of(f);
    } catch (RuntimeException | LinkageError e) { // no FFM permission, unsupported platform...
      return fail(algorithm, e.toString());
    }
  }

  private static Optional<Functions> fail(Algorithm algorithm, String why) {
    System.getLogger(LibCrypto.class.getName())
        .log(
            System.Logger.Level.DEBUG,
            "libcrypto " + algorithm.opensslName() + " not used: " + why);
    return Optional.empty();
  }

  private static Optional<SymbolLookup> library() {
    for (String name :
        new String[] {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so", "libcrypto.dylib"}) {
      try {
        return Optional.of(SymbolLookup.libraryLookup(name, Arena.global()));
      } catch (IllegalArgumentException e) {
        // not this one
      }
    }
    return Optional.empty();
  }

  /** Lengths around every block boundary and a multi-block run, in one and several updates. */
  private static boolean agreesWithJdk(Algorithm algorithm, Functions f) {
    MessageDigest jdk;
    try {
      jdk = MessageDigest.getInstance(algorithm.jcaName());
    } catch (NoSuchAlgorithmException e) {
      return false;
    }
    byte[] data = new byte[1000];
    new SplittableRandom(7).nextBytes(data);
    long[] state = new long[STATE_LONGS];
    byte[] out = new byte[algorithm.digestSize()];
    for (int len : new int[] {0, 1, 55, 56, 64, 111, 112, 128, 1000}) {
      f.init(state);
      int half = len / 3;
      f.update(state, data, 0, half);
      f.update(state, data, half, len - half);
      f.finish(state, out, 0);
      if (!Arrays.equals(out, jdk.digest(Arrays.copyOf(data, len)))) {
        return false;
      }
    }
    return true;
  }
}
