package org.jverity.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether this machine should hash SHA-256 two blocks at a time: its CPU has SHA-NI (as {@code
 * /proc/cpuinfo} says, independently of the library's own CPUID check) and {@code
 * JVERITY_SHA256_X2} does not turn it off. A test that expects the two streams asks this, so a
 * build whose two-stream path is present but unused fails where it should run.
 */
public final class TwoStreams {
  private TwoStreams() {}

  /** Whether {@code /proc/cpuinfo} lists {@code sha_ni}. */
  public static boolean cpuHasShaNi() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("flags"))
          .anyMatch(l -> List.of(l.split("\\s+")).contains("sha_ni"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether the two-stream path should run here. */
  public static boolean expected() {
    return cpuHasShaNi() && !"off".equals(System.getenv("JVERITY_SHA256_X2"));
  }
}
