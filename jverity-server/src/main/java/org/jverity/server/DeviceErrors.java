package org.jverity.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.io.BlockDevice;
import org.jverity.remote.RemoteReport;

/**
 * Reads of one served export's data or hash file that failed, which clients see only as EIO: a file
 * truncated under the server (shorter now than when it was opened, and the read ended past its new
 * end), or any other I/O error; for a device at a URL, its object replaced since open ({@link
 * OriginFailure}) or the origin failing. Each device's first failure of each kind is logged, one
 * line naming the export and the device (for a truncation, the size expected and found; for a
 * changed object, its ETags); every one is counted, for {@code status} and the metrics ({@code
 * jverity_nbd_device_errors_total}). Thread-safe: reads fail on any request or hashing thread.
 */
public final class DeviceErrors {
  private final String export;
  private final ServerLog log;
  private final LongAdder truncated = new LongAdder();
  private final LongAdder other = new LongAdder();

  /** "data truncated", "hash io", ...: what was logged already (once each). */
  private final ConcurrentHashMap<String, String> logged = new ConcurrentHashMap<>();

  private volatile String truncation; // the first truncation, for status; null while none

  /** Each remote device's object change ("data object changed since open: ..."), by role. */
  private final ConcurrentHashMap<String, String> changed = new ConcurrentHashMap<>();

  private final LongAdder changedReads = new LongAdder();
  private final List<WatchedDevice> watched = new CopyOnWriteArrayList<>();

  public DeviceErrors(String export, ServerLog log) {
    this.export = export;
    this.log = log;
  }

  /**
   * {@code device}, opened from {@code location} (a path or a URL), watched: its failed reads are
   * told here.
   */
  public BlockDevice watch(BlockDevice device, String location, String role) throws IOException {
    WatchedDevice w = new WatchedDevice(device, location, role, this);
    watched.add(w);
    return w;
  }

  /** A read of {@code d} that was to end at byte {@code end} failed with {@code e}. */
  void failed(WatchedDevice d, long end, IOException e) {
    if (d.remote) {
      originFailed(d, e);
      return;
    }
    Path file = Path.of(d.location);
    long now = sizeNow(file);
    if (now >= 0 && now < d.openedSize && end > now) {
      truncated.increment();
      String what =
          d.role
              + " file "
              + file.toAbsolutePath()
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
          d.role + " file " + file.toAbsolutePath() + ": a read failed (I/O error)");
    }
  }

  /**
   * A remote device's read failed: its object was replaced (one line, "data object changed since
   * open: ETag A -> B", and every later read fails the same way without a word), or the origin
   * failed after its retries (the first failure's line, which names origin, range and status).
   */
  private void originFailed(WatchedDevice d, IOException e) {
    String change = OriginFailure.changed(d.role, e);
    if (change != null) {
      changedReads.increment();
      changed.putIfAbsent(d.role, change);
      once(d.role + " changed", change);
      return;
    }
    other.increment();
    once(d.role + " io", d.role + " " + d.description() + ": " + e.getMessage());
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

  /** Failed reads of a remote device whose object changed since open. */
  public long changedReads() {
    return changedReads.sum();
  }

  /**
   * The change of {@code role}'s object ("data object changed since open: ETag A -> B"), or null.
   */
  public String changed(String role) {
    return changed.get(role);
  }

  /** Whether any device's object changed since open. */
  public boolean anyChanged() {
    return !changed.isEmpty();
  }

  /** The devices watched, in the order they were opened: data, then hash. */
  List<WatchedDevice> devices() {
    return List.copyOf(watched);
  }

  /** The remote devices among the watched ones, with what they met. */
  List<RemoteReport.Device> remoteDevices() {
    List<RemoteReport.Device> list = new ArrayList<>();
    for (WatchedDevice w : devices()) {
      if (w.remote) {
        list.add(new RemoteReport.Device(w.role, w.description(), changed(w.role)));
      }
    }
    return list;
  }
}
