package org.jverity.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * jverity's native library ({@code libjverity.so}, built from {@code jverity-core/src/main/c} when
 * gcc and libcrypto's headers are present): the loops a one-shot command runs over every byte of an
 * image (block hashing, Reed-Solomon parity), at full speed from the process's first block, where
 * the JDK's code would wait for the JIT.
 *
 * <p>Loaded once, from the path in {@code -Djverity.native.library} ({@code bin/jverity} gives the
 * one the build made unless {@code JVERITY_NATIVE=off}). Without it, or when it does not load,
 * every loop runs in Java with identical results; its users self-test what they call before
 * trusting it.
 */
public final class NativeLibrary {
  public static final String PROPERTY = "jverity.native.library";

  /** The interface version the classes here speak; a library built from another is refused. */
  public static final int ABI_VERSION = 5;

  private NativeLibrary() {}

  private static final class Loaded {
    static final String PROBLEM = load(); // null: loaded
  }

  /** Why the library is not loaded, or null when it is (loading it on first call). */
  public static String problem() {
    return Loaded.PROBLEM;
  }

  public static boolean loaded() {
    return Loaded.PROBLEM == null;
  }

  private static String load() {
    String path = System.getProperty(PROPERTY, "");
    if (path.isEmpty()) {
      return "-D" + PROPERTY + " not set";
    }
    if (!Files.isRegularFile(Path.of(path))) {
      return path + ": no such file";
    }
    try {
      System.load(path);
      int abi = abiVersion();
      return abi == ABI_VERSION
          ? null
          : path + ": interface version " + abi + " (expected " + ABI_VERSION + ")";
    } catch (UnsatisfiedLinkError | SecurityException e) {
      return path + ": " + e.getMessage();
    }
  }

  private static native int abiVersion();
}
