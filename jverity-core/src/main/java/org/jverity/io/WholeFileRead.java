package org.jverity.io;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jverity.internal.NativeLibrary;

/**
 * A small local file read whole by one call into the native library: open, read to its end, close.
 * Reading 10^5 files of a few KiB ({@code digest --recursive}), a {@code FileInputStream} added an
 * {@code fstat}, a second {@code read} to see the end and a {@code Cleaner} per file; this makes
 * the three system calls alone. Where the library is not loaded, or for a path this cannot name
 * exactly (anything but ASCII: its bytes are the platform's to encode), or on any failure, it
 * answers {@link #NOT_READ} and the caller reads the file the JDK's way, whose exception then says
 * what is wrong with it.
 */
public final class WholeFileRead {
  /** The room filled before the end of the file was seen. */
  public static final int FULL = -1;

  /** Not read here: read it another way. */
  public static final int NOT_READ = -2;

  private WholeFileRead() {}

  /**
   * Reads {@code file} into {@code into[at, at + room)}: its length, {@link #FULL} or {@link
   * #NOT_READ}. {@code expected} is its size as last seen (a read that returns that much when more
   * was asked for is its end).
   */
  public static int read(Path file, long expected, byte[] into, int at, int room) {
    if (!NativeLibrary.loaded()) {
      return NOT_READ;
    }
    String name = file.toString();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == 0 || c > 0x7e) {
        return NOT_READ;
      }
    }
    int n = read0(name.getBytes(StandardCharsets.US_ASCII), into, at, room, expected);
    return n >= FULL ? n : NOT_READ;
  }

  private static native int read0(byte[] path, byte[] into, int at, int room, long expected);
}
