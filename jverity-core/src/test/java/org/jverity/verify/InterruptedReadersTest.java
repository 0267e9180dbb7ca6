package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.testing.TestImage;

/**
 * Defect 2: one interrupt closed the image for every reader (a FileChannel closes itself when a
 * reading thread is interrupted, and the scheduler interrupted its own threads). Here readers are
 * interrupted over and over, on files read with pread and with a mapping, while other readers of
 * the same image must see every read succeed.
 */
class InterruptedReadersTest {
  private static final int BS = 4096;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"pread", "mapped"})
  void interruptsNeverBreakTheImageForOtherReaders(String kind, @TempDir Path dir)
      throws Exception {
    TestImage im = TestImage.random(2048, BS, 21);
    Path data = Files.write(dir.resolve("data.img"), im.data());
    Path hash = Files.write(dir.resolve("data.hash"), im.hash());
    try (BlockDevice d =
            kind.equals("pread") ? FileDevice.openRead(data) : BlockDevices.openRead(data);
        BlockDevice h =
            kind.equals("pread") ? FileDevice.openRead(hash) : BlockDevices.openRead(hash);
        VerifiedReader r =
            VerifiedReader.open(
                im.params(),
                d,
                h,
                im.root(),
                new HashBlockCache(64 << 10),
                ReaderOptions.DEFAULTS);
        HashingPool pool = new HashingPool(2);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong goodReads = new AtomicLong();
      AtomicLong interruptedReads = new AtomicLong();
      Thread[] victims = new Thread[3];
      Thread[] bystanders = new Thread[3];
      for (int i = 0; i < victims.length; i++) {
        victims[i] =
            Thread.ofPlatform()
                .start(() -> readLoop(s, im, stop, failure, goodReads, interruptedReads, 1 << 20));
        bystanders[i] =
            Thread.ofVirtual().start(() -> readLoop(s, im, stop, failure, goodReads, null, 3 * BS));
      }
      long until = System.nanoTime() + 1_500_000_000L;
      while (System.nanoTime() < until && failure.get() == null) {
        for (Thread v : victims) {
          v.interrupt();
        }
        Thread.sleep(1);
      }
      stop.set(true);
      for (Thread t : victims) {
        t.join(10_000);
      }
      for (Thread t : bystanders) {
        t.join(10_000);
      }
      assertThat(failure.get()).isNull();
      assertThat(interruptedReads.get()).as("some reads were interrupted").isPositive();
      assertThat(goodReads.get()).isPositive();
      assertThat(r.read(0, 2048 * BS)).isEqualTo(im.data()); // and the image still reads
      assertThat(r.corruptionCount()).isZero();
    }
  }

  private static void readLoop(
      VerificationScheduler s,
      TestImage im,
      AtomicBoolean stop,
      AtomicReference<Throwable> failure,
      AtomicLong good,
      AtomicLong interrupted,
      int maxLength) {
    SplittableRandom rnd = new SplittableRandom(Thread.currentThread().threadId());
    byte[] dst = new byte[maxLength];
    while (!stop.get()) {
      int len = 1 + rnd.nextInt(maxLength);
      long off = rnd.nextLong(im.data().length - len + 1);
      try {
        s.read(off, dst, 0, len);
        if (!Arrays.equals(dst, 0, len, im.data(), (int) off, (int) off + len)) {
          throw new AssertionError("wrong bytes at " + off + "+" + len);
        }
        good.incrementAndGet();
      } catch (InterruptedIOException e) {
        if (interrupted == null) {
          failure.set(e); // a bystander is never interrupted: this would be the defect
          return;
        }
        interrupted.incrementAndGet();
        Thread.interrupted(); // clear, and read on
      } catch (IOException | RuntimeException | Error e) {
        failure.set(e);
        return;
      }
    }
  }
}
