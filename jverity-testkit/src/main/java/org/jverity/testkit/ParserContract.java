package org.jverity.testkit;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The fuzz targets' invariant (issue 17): a parser given any input returns a value or throws one of
 * its documented exception types, and allocates no more than a bound set by the input's size.
 * Anything else (another exception, an {@link OutOfMemoryError}, an allocation a length field asked
 * for) is an {@link AssertionError}, which Jazzer reports as a finding.
 *
 * <p>Allocation is measured on the calling thread (HotSpot's per-thread allocated bytes), so a
 * parser that reads a length of 2 GiB from its input and allocates it fails here even when the heap
 * had room.
 */
public final class ParserContract {
  /** Slack for what any call allocates whatever its input: exception messages, stack traces. */
  public static final long BASE_ALLOCATION = 4L << 20;

  /** Bytes a parser may allocate per input byte (copies, strings, boxed fields). */
  public static final long ALLOCATION_PER_INPUT_BYTE = 64;

  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** A parse that may throw anything. */
  @FunctionalInterface
  public interface Parse {
    void run() throws Exception;
  }

  private ParserContract() {}

  /**
   * Runs {@code parse} on an input of {@code inputBytes} bytes: it must return or throw one of
   * {@code refusals}, within {@link #allocationBound(long)}.
   */
  @SafeVarargs
  public static void holds(long inputBytes, Parse parse, Class<? extends Throwable>... refusals) {
    holdsWithin(allocationBound(inputBytes), parse, refusals);
  }

  /**
   * As {@link #holds}, with an explicit allocation bound in bytes. The parse runs three times and
   * the least the second and third runs allocated is measured: the first loads the classes its path
   * needs, on this thread, and when fuzzing Jazzer's instrumentation also allocates on this thread
   * now and then (ServeConfigFuzzTest saw 24 MB once for an input whose runs allocate 14 KB); a
   * parser is a function of its input, so what it allocates itself is in both runs.
   */
  @SafeVarargs
  public static void holdsWithin(
      long maxAllocatedBytes, Parse parse, Class<? extends Throwable>... refusals) {
    returnsOrRefuses(parse, refusals);
    long used = Math.min(allocatedBy(parse, refusals), allocatedBy(parse, refusals));
    if (used > maxAllocatedBytes) {
      throw new AssertionError(
          "parser allocated " + used + " bytes (expected: at most " + maxAllocatedBytes + ")");
    }
  }

  @SafeVarargs
  private static long allocatedBy(Parse parse, Class<? extends Throwable>... refusals) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    returnsOrRefuses(parse, refusals);
    return THREADS.getCurrentThreadAllocatedBytes() - before;
  }

  @SafeVarargs
  private static void returnsOrRefuses(Parse parse, Class<? extends Throwable>... refusals) {
    try {
      parse.run();
    } catch (Throwable t) {
      if (Arrays.stream(refusals).noneMatch(c -> c.isInstance(t))) {
        throw new AssertionError(
            "parser threw "
                + t.getClass().getName()
                + " (expected: a value or one of "
                + Arrays.toString(refusals)
                + ")",
            t);
      }
    }
  }

  /** What a parser may allocate for an input of {@code inputBytes} bytes. */
  public static long allocationBound(long inputBytes) {
    return BASE_ALLOCATION + ALLOCATION_PER_INPUT_BYTE * inputBytes;
  }
}
