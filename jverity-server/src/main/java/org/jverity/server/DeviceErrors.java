package org.jverity.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.io.BlockDevice;

/**
 * Reads of one served export's data or hash file that failed, which clients see only as EIO: a file
 * truncated under the server (shorter now than when it was opened, and the read ended past its new
 * end), or any other I/O error. Each file's first failure of each kind is logged, one line naming
 * the export and the file (for a truncation, the size expected and found); every one is counted,
 * for {@code status} and the metrics ({@code jverity_nbd_device_errors_total}). Thread-safe: reads
 * fail on any request or hashing thread.
 */
public final class DeviceErrors {
  private final String export;
  private final ServerLog log;
  private final LongAdder truncated = new LongAdder();
  private final LongAdder other = new LongAdder();

  /** "data truncated", "hash io", ...: what was logged already (once each). */
  private final ConcurrentHashMap<String, String> logged = new ConcurrentHashMap<>();

  private volatile String truncation; // the first truncation, for status; null while none

  public DeviceErrors(String export, ServerLog log) {
    this.export = export;
    this.log = log;
  }

  /** {@code device}, opened from {@code file}, watched: its failed reads are told here. */
  public BlockDevice watch(BlockDevice device, Path file, String role) throws IOException {
    return new WatchedDevice(device, file, role, this);
  }

  /** A read of {@code d} that was to end at byte {@code end} failed. */
  void failed(WatchedDevice d, long end) {
    long now = sizeNow(d.file);
    if (now >= 0 && now < d.openedSize && end > now) {
      truncated.increment();
      String what =
          d.role
              + " file "
              + d.file.toAbsolutePath()
              + ": "
              + d.openedSize
              + " bytes expected, "
              + now
              + " found";
      if (truncation == null) {
        truncation = what;
      }
      once(
          d.role + " truncated",
          what + " (truncated while served: reads past byte " + now + " fail)");
    } else {
      other.increment();
      once(
          d.role + " io",
          d.role + " file " + d.file.toAbsolutePath() + ": a read failed (I/O error)");
    }
  }

  private void once(String key, String line) {
    if (logged.putIfAbsent(key, line) == null) {
      log.line("export " + ServerLog.display(export) + ": " + line);
    }
  }

  /** The file's size now, or -1 when it cannot be told (gone, unreadable). */
  private static long sizeNow(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Failed reads of a file truncated under the server. */
  public long truncated() {
    return truncated.sum();
  }

  /** Failed reads for any other reason. */
  public long other() {
    return other.sum();
  }

  /** The first truncation met ("data file /x/d.img: 8192 bytes expected, 4096 found"), or null. */
  public String truncation() {
    return truncation;
  }
}
