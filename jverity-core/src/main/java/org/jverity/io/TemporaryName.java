package org.jverity.io;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of an {@link AtomicOutput} temporary, {@code .NAME.SYSTEM-PID-START-RANDOM.jverity-tmp},
 * which says whose it is: the process (its id and start time, in clock ticks since boot as {@code
 * /proc/PID/stat} says it: unlike a wall-clock time, no clock step changes it) and the system that
 * process ran on (a digest of the boot id and the pid namespace). A later run may then prove a
 * temporary abandoned: same system, and no process of that id started at that time. One killed by
 * SIGKILL, or by a crash, is removed so; one of another boot, host or container is not, as its
 * process may be alive there.
 */
record TemporaryName(String output, String system, long pid, long start, long random) {
  private static final String SUFFIX = ".jverity-tmp";
  private static final Pattern STAMP =
      Pattern.compile("([0-9a-f]{8})-([0-9]{1,19})-([0-9a-f]{1,16})-([0-9a-f]{1,16})");
  private static final String UNKNOWN = "00000000"; // no /proc: nothing is ever proved abandoned
  private static final String THIS_SYSTEM = thisSystem();
  private static final long THIS_START = startOf(ProcessHandle.current().pid()).orElse(0L);

  /** A new name for a temporary of {@code output} (a file name, no directory). */
  static TemporaryName fresh(String output) {
    return new TemporaryName(
        output,
        THIS_SYSTEM,
        ProcessHandle.current().pid(),
        THIS_START,
        ThreadLocalRandom.current().nextLong() >>> 16);
  }

  /** The name of a temporary of {@code output}, if {@code fileName} is one. */
  static Optional<TemporaryName> parse(String output, String fileName) {
    String prefix = "." + output + ".";
    if (!fileName.startsWith(prefix) || !fileName.endsWith(SUFFIX)) {
      return Optional.empty();
    }
    String stamp = fileName.substring(prefix.length(), fileName.length() - SUFFIX.length());
    Matcher m = STAMP.matcher(stamp);
    if (!m.matches()) {
      return Optional.empty(); // an older jverity's, or not ours: never touched
    }
    try {
      return Optional.of(
          new TemporaryName(
              output,
              m.group(1),
              Long.parseLong(m.group(2)),
              Long.parseUnsignedLong(m.group(3), 16),
              Long.parseUnsignedLong(m.group(4), 16)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code fileName} looks like a temporary of {@code output}, of any stamp. */
  static boolean looksLikeOneOf(String output, String fileName) {
    return fileName.startsWith("." + output + ".") && fileName.endsWith(SUFFIX);
  }

  String fileName() {
    return "."
        + output
        + "."
        + system
        + "-"
        + pid
        + "-"
        + Long.toHexString(start)
        + "-"
        + Long.toHexString(random)
        + SUFFIX;
  }

  /**
   * Whether the process that made it has ended: made on this system (boot and pid namespace), and
   * no process with its id runs, or the one that does started at another time (the id reused).
   */
  boolean abandoned() {
    if (system.equals(UNKNOWN) || !system.equals(THIS_SYSTEM) || start == 0) {
      return false;
    }
    try {
      return startOf(pid).map(s -> s != start).orElse(false);
    } catch (NoSuchProcess e) {
      return true;
    }
  }

  /**
   * When process {@code pid} started, field 22 of its {@code /proc/PID/stat} (after the command's
   * name in parentheses, which may hold spaces); empty when unknown.
   *
   * @throws NoSuchProcess when no such process exists
   */
  private static Optional<Long> startOf(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    } catch (NoSuchFileException e) {
      if (Files.isDirectory(Path.of("/proc/self"))) {
        throw new NoSuchProcess();
      }
      return Optional.empty(); // no /proc here
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    String[] fields = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" +");
    try {
      return fields.length > 19 ? Optional.of(Long.parseLong(fields[19])) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** No process has the id asked for. */
  private static final class NoSuchProcess extends RuntimeException {
    NoSuchProcess() {
      super(null, null, false, false);
    }
  }

  /**
   * 32 bits of FNV-1a over the boot id and the pid namespace. Not a digest from the JDK's
   * providers: setting those up costs a one-shot command ~10 ms. A collision of two systems writing
   * into one directory still needs a process of the same id started at the same tick to matter.
   */
  private static String thisSystem() {
    try {
      String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
      String pids = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
      int h = 0x811c9dc5;
      for (byte b : (boot + " " + pids).getBytes(StandardCharsets.UTF_8)) {
        h = (h ^ (b & 0xff)) * 0x01000193;
      }
      String hex = Integer.toHexString(h);
      String s = "0".repeat(8 - hex.length()) + hex;
      return s.equals(UNKNOWN) ? "00000001" : s;
    } catch (IOException | UnsupportedOperationException e) {
      return UNKNOWN;
    }
  }
}
