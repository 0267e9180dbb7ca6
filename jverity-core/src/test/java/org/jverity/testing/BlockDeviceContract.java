package org.jverity.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.jverity.io.BlockDevice;

/**
 * What every {@link BlockDevice} must do, in the manner of Lucene's {@code BaseDirectoryTestCase}:
 * each implementation's test subclasses this and says how to open a device over given bytes.
 * Randomized cases use fixed seeds, so a failure reproduces. Public, and shipped in the core's test
 * jar with the rest of this package, so that an embedder's own device can run it.
 */
public abstract class BlockDeviceContract {
  /** Size of one random read in the concurrency cases, in bytes. */
  private static final int READ = 4096;

  @TempDir protected Path tmp;
  private int files;

  /** A device whose bytes are {@code contents}; the test closes it. */
  protected abstract BlockDevice open(byte[] contents) throws IOException;

  /** True when the bytes live in a file that {@link #truncate} can shrink underneath the device. */
  protected boolean supportsTruncation() {
    return false;
  }

  /** Shrinks the file under {@code device} to {@code size} bytes. */
  protected void truncate(BlockDevice device, long size) throws IOException {
    throw new UnsupportedOperationException("truncate");
  }

  /** False for a device whose close frees nothing, so reads after close still work. */
  protected boolean refusesReadsAfterClose() {
    return true;
  }

  /** False for a device that an interrupted reader may close (the FileChannel fallback). */
  protected boolean survivesInterrupts() {
    return true;
  }

  /**
   * True for a device whose read waits interruptibly (for a fetch another thread makes): an
   * interrupt cancels that reader's read with {@link java.io.InterruptedIOException}, and must
   * still never break the device for other readers or for the next read.
   */
  protected boolean interruptsCancelReads() {
    return false;
  }

  /** Writes {@code contents} to a new file in the test's temporary directory. */
  protected final Path file(byte[] contents) throws IOException {
    return Files.write(tmp.resolve("image-" + files++), contents);
  }

  /** The three kinds of destination a caller may pass. */
  enum Dst {
    ARRAY,
    HEAP_BUFFER,
    DIRECT_BUFFER;

    /** Reads {@code length} bytes at {@code offset} through this kind of destination. */
    byte[] read(BlockDevice d, long offset, int length) throws IOException {
      int pad = 5; // the destination never starts at index 0 of its storage
      switch (this) {
        case ARRAY -> {
          byte[] b = new byte[pad + length + pad];
          d.readFully(offset, b, pad, length);
          return Arrays.copyOfRange(b, pad, pad + length);
        }
        case HEAP_BUFFER, DIRECT_BUFFER -> {
          int cap = pad + length + pad;
          ByteBuffer b =
              this == HEAP_BUFFER ? ByteBuffer.allocate(cap) : ByteBuffer.allocateDirect(cap);
          b.position(pad).limit(pad + length);
          d.readFully(offset, b);
          assertThat(b.position()).as("position after the read").isEqualTo(pad + length);
          byte[] out = new byte[length];
          b.get(pad, out);
          return out;
        }
        default -> throw new AssertionError(this);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Dst.class)
  public void readsOfEveryAlignmentReturnTheRightBytes(Dst dst) throws IOException {
    byte[] contents = Images.random(1, 3 * 4096 + 123);
    int size = contents.length;
    try (BlockDevice d = open(contents)) {
      assertThat(d.size()).isEqualTo(size);
      for (int offset :
          new int[] {0, 1, 7, 511, 512, 513, 4095, 4096, 4097, 8191, size - 4097, size - 1, size}) {
        for (int length : new int[] {0, 1, 3, 511, 512, 4096, 4097, 8193}) {
          if (offset + length <= size) {
            assertThat(dst.read(d, offset, length))
                .as("%d bytes at %d", length, offset)
                .isEqualTo(Arrays.copyOfRange(contents, offset, offset + length));
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Dst.class)
  public void readsAtOrPastTheEndAreEof(Dst dst) throws IOException {
    byte[] contents = Images.random(2, 10_000);
    try (BlockDevice d = open(contents)) {
      assertThatThrownBy(() -> dst.read(d, 10_000, 1)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> dst.read(d, 10_001, 1)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> dst.read(d, 9_000, 1_001)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> dst.read(d, Long.MAX_VALUE - 1, 100))
          .isInstanceOf(EOFException.class);
      assertThat(dst.read(d, 9_000, 1_000)).isEqualTo(Arrays.copyOfRange(contents, 9_000, 10_000));
    }
  }

  @Test
  public void eofMessageNamesTheDeviceAndOffset() throws IOException {
    try (BlockDevice d = open(new byte[100])) {
      assertThatThrownBy(() -> d.readFully(90, new byte[20], 0, 20))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining(d.description());
    }
  }

  @Test
  public void negativeOffsetIsRejected() throws IOException {
    try (BlockDevice d = open(new byte[100])) {
      assertThatThrownBy(() -> d.readFully(-1, ByteBuffer.allocate(1)))
          .isInstanceOfAny(IllegalArgumentException.class, EOFException.class);
    }
  }

  @Test
  public void zeroLengthReadsAtTheEndSucceed() throws IOException {
    try (BlockDevice d = open(new byte[100])) {
      ByteBuffer empty = ByteBuffer.allocate(0);
      d.readFully(100, empty);
      d.readFully(100, new byte[0], 0, 0);
      assertThat(empty.position()).isZero();
    }
  }

  @Test
  public void eightThreadsReadingAtRandomAllGetTheRightBytes() throws Exception {
    byte[] contents = Images.random(3, 1 << 20);
    try (BlockDevice d = open(contents)) {
      List<Throwable> failures =
          runThreads(
              8,
              t -> {
                SplittableRandom r = new SplittableRandom(100 + t);
                Dst[] kinds = Dst.values();
                for (int i = 0; i < 1500; i++) {
                  int length = 1 + r.nextInt(2 * READ);
                  int offset = r.nextInt(contents.length - length + 1);
                  byte[] got = kinds[i % kinds.length].read(d, offset, length);
                  if (!Arrays.equals(got, 0, length, contents, offset, offset + length)) {
                    throw new AssertionError(
                        "thread " + t + ": wrong bytes for " + length + " at " + offset);
                  }
                }
              });
      assertThat(failures).isEmpty();
    }
  }

  @Test
  public void aThreadWithItsInterruptFlagSetReadsAndTheDeviceKeepsWorking() throws Exception {
    assumeTrue(survivesInterrupts(), "an interrupt may close this device");
    byte[] contents = Images.random(4, 64 * 1024);
    try (BlockDevice d = open(contents)) {
      Thread.currentThread().interrupt();
      byte[] got = null;
      try {
        got = Dst.HEAP_BUFFER.read(d, 4096, 8192);
      } catch (java.io.InterruptedIOException e) {
        if (!interruptsCancelReads()) {
          throw e;
        }
      } finally {
        assertThat(Thread.interrupted()).as("interrupt flag still set after the read").isTrue();
      }
      if (got != null || !interruptsCancelReads()) {
        assertThat(got).isEqualTo(Arrays.copyOfRange(contents, 4096, 4096 + 8192));
      }
      assertThat(
              runThreads(
                  2,
                  t -> {
                    for (Dst dst : Dst.values()) {
                      assertThat(dst.read(d, 1000, 5000))
                          .isEqualTo(Arrays.copyOfRange(contents, 1000, 6000));
                    }
                  }))
          .isEmpty();
    }
  }

  @Test
  public void readersInterruptedOverAndOverNeverBreakTheDeviceForAnother() throws Exception {
    assumeTrue(survivesInterrupts(), "an interrupt may close this device");
    byte[] contents = Images.random(5, 1 << 20);
    try (BlockDevice d = open(contents)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong victimReads = new AtomicLong();
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      Thread victim =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      readUntil(stop, d, contents, 6, victimReads, interruptsCancelReads());
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  });
      Thread interrupter =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      victim.interrupt();
                      Thread.onSpinWait();
                    }
                  });
      try {
        AtomicLong otherReads = new AtomicLong();
        Thread other =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        readUntil(stop, d, contents, 7, otherReads, false);
                      } catch (Throwable e) {
                        failures.add(e);
                      }
                    });
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < deadline && failures.isEmpty()) {
          Thread.sleep(10);
        }
        stop.set(true);
        other.join();
        victim.join();
        assertThat(failures).isEmpty();
        assertThat(victimReads.get()).isPositive();
        assertThat(otherReads.get()).isPositive();
      } finally {
        stop.set(true);
        interrupter.join();
      }
      assertThat(Dst.ARRAY.read(d, 0, 100)).isEqualTo(Arrays.copyOf(contents, 100));
    }
  }

  @Test
  public void readsAfterCloseThrowIOException() throws IOException {
    assumeTrue(refusesReadsAfterClose(), "close frees nothing here");
    BlockDevice d = open(new byte[8192]);
    d.close();
    for (Dst dst : Dst.values()) {
      assertThatThrownBy(() -> dst.read(d, 0, 10))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(d.description());
    }
    d.close(); // idempotent
  }

  @Test
  public void closeWhileFourThreadsReadLetsEachSeeRightBytesOrAnIOException() throws Exception {
    byte[] contents = Images.random(8, 1 << 20);
    BlockDevice d = open(contents);
    CountDownLatch started = new CountDownLatch(4);
    List<Throwable> failures =
        runThreads(
            4,
            t -> {
              SplittableRandom r = new SplittableRandom(200 + t);
              Dst[] kinds = Dst.values();
              for (int i = 0; ; i++) {
                if (i == 50) {
                  started.countDown();
                }
                int offset = r.nextInt(contents.length - READ + 1);
                byte[] got;
                try {
                  got = kinds[i % kinds.length].read(d, offset, READ);
                } catch (IOException e) {
                  if (refusesReadsAfterClose()) {
                    return; // closed underneath: the one acceptable failure
                  }
                  throw e;
                }
                if (!Arrays.equals(got, 0, READ, contents, offset, offset + READ)) {
                  throw new AssertionError("thread " + t + ": wrong bytes at " + offset);
                }
                if (!refusesReadsAfterClose() && i > 2000) {
                  return;
                }
              }
            },
            () -> {
              started.await();
              d.close();
            });
    assertThat(failures).isEmpty();
  }

  @Test
  public void truncationUnderneathIsAnIOExceptionNeverACrash() throws Exception {
    assumeTrue(supportsTruncation(), "no file to truncate");
    int size = 1 << 20;
    byte[] contents = Images.random(9, size);
    try (BlockDevice d = open(contents)) {
      SplittableRandom r = new SplittableRandom(10);
      Dst[] kinds = Dst.values();
      for (int i = 0; i < 20_000; i++) { // enough for the JIT to compile the copy before the fault
        int offset = r.nextInt(size - READ + 1);
        assertThat(kinds[i % kinds.length].read(d, offset, READ))
            .isEqualTo(Arrays.copyOfRange(contents, offset, offset + READ));
      }
      truncate(d, size / 2);
      for (int i = 0; i < 300; i++) {
        Dst dst = kinds[i % kinds.length];
        int tail = size / 2 + r.nextInt(size / 2 - READ + 1);
        assertThatThrownBy(() -> dst.read(d, tail, READ))
            .as("read at %d", tail)
            .isInstanceOf(IOException.class);
        int head = r.nextInt(size / 2 - READ + 1);
        try {
          assertThat(dst.read(d, head, READ))
              .isEqualTo(Arrays.copyOfRange(contents, head, head + READ));
        } catch (IOException acceptable) {
          // a device may refuse the whole file once it shrank
        }
      }
    }
  }

  /** One thread's work, numbered from 0. */
  interface Work {
    void run(int thread) throws Exception;
  }

  /** Something to do on the calling thread while the workers run. */
  interface Alongside {
    void run() throws Exception;
  }

  /** Runs {@code work} on {@code n} platform threads and returns what they threw. */
  static List<Throwable> runThreads(int n, Work work) throws Exception {
    return runThreads(n, work, () -> {});
  }

  static List<Throwable> runThreads(int n, Work work, Alongside alongside) throws Exception {
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      int id = t;
      threads.add(
          Thread.ofPlatform()
              .name("reader-" + t)
              .start(
                  () -> {
                    try {
                      work.run(id);
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    try {
      alongside.run();
    } finally {
      for (Thread t : threads) {
        t.join();
      }
    }
    return List.copyOf(failures);
  }

  private static void readUntil(
      AtomicBoolean stop,
      BlockDevice d,
      byte[] contents,
      long seed,
      AtomicLong reads,
      boolean mayBeCancelled)
      throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    Dst[] kinds = Dst.values();
    for (int i = 0; !stop.get(); i++) {
      int offset = r.nextInt(contents.length - READ + 1);
      byte[] got;
      try {
        got = kinds[i % kinds.length].read(d, offset, READ);
      } catch (java.io.InterruptedIOException e) {
        if (!mayBeCancelled) {
          throw e;
        }
        continue; // this reader's read was cancelled; the device must go on
      }
      if (!Arrays.equals(got, 0, READ, contents, offset, offset + READ)) {
        throw new AssertionError(Thread.currentThread().getName() + ": wrong bytes at " + offset);
      }
      reads.incrementAndGet();
    }
  }
}
