package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.jverity.io.BlockDevice;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;

/**
 * {@code error_as_corruption} (veritysetup 2.8's {@code --error-as-corruption}, the kernel's {@code
 * restart_on_error} / {@code panic_on_error}): with a fail-closed mode, an I/O error of the data or
 * hash device on a read's own path is a corruption; a prefetch's is never one.
 */
class ErrorAsCorruptionTest {
  private static final int BS = 4096;

  private static ReaderOptions errorAsCorruption(CorruptionMode mode) {
    return ReaderOptions.DEFAULTS.withMode(mode).withErrorAsCorruption(true);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = CorruptionMode.class,
      names = {"RESTART", "PANIC"})
  void aDataDeviceErrorFailsClosedAndIsCounted(CorruptionMode mode) throws Exception {
    TestImage im = TestImage.random(64, BS, 181);
    var data = new DeviceWrapper.Failing(im.dataDevice(), 9L * BS, 10L * BS);
    try (VerifiedReader r = Readers.open(im, data, im.hashDevice(), errorAsCorruption(mode));
        HashingPool pool = new HashingPool(1);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      assertThat(s.read(0, 8 * BS)).isEqualTo(Arrays.copyOf(im.data(), 8 * BS));
      byte[] dst = new byte[4 * BS];
      Arrays.fill(dst, (byte) 0x33);
      assertThatThrownBy(() -> s.read(8L * BS, dst, 0, dst.length))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.area()).isEqualTo(Area.DATA);
                assertThat(e.getCause()).hasMessageContaining("injected I/O error");
                assertThat(e.getMessage()).contains("could not be read");
              });
      assertThat(Arrays.copyOf(dst, BS)).isEqualTo(Arrays.copyOfRange(im.data(), 8 * BS, 9 * BS));
      assertThat(Arrays.copyOfRange(dst, BS, 4 * BS)).containsOnly(0);
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(r.status()).isEqualTo('C');
      assertThat(r.failedClosed()).isTrue();
      assertThatThrownBy(() -> s.read(0, BS)).isInstanceOf(FailedClosedException.class);
    }
  }

  @Test
  void aHashDeviceErrorFailsClosedAndIsCounted() throws Exception {
    TestImage im = TestImage.random(600, BS, 182);
    var hash = new DeviceWrapper.Failing(im.hashDevice(), 2L * BS, 3L * BS); // level-0 block 2
    try (VerifiedReader r =
        Readers.open(im, im.dataDevice(), hash, errorAsCorruption(CorruptionMode.PANIC))) {
      assertThat(r.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
      assertThatThrownBy(() -> r.read(130L * BS, BS))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.area()).isEqualTo(Area.HASH);
                assertThat(e.block()).isEqualTo(2);
                assertThat(e.dataBlock()).isEqualTo(130);
              });
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(FailedClosedException.class);
    }
  }

  @Test
  void withoutItAnIoErrorIsAnIoErrorOnly() throws Exception {
    TestImage im = TestImage.random(64, BS, 183);
    var data = new DeviceWrapper.Failing(im.dataDevice(), 9L * BS, 10L * BS);
    try (VerifiedReader r =
        Readers.open(
            im, data, im.hashDevice(), ReaderOptions.DEFAULTS.withMode(CorruptionMode.RESTART))) {
      assertThatThrownBy(() -> r.read(9L * BS, BS))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(CorruptBlockException.class);
      assertThat(r.corruptionCount()).isZero();
      assertThat(r.status()).isEqualTo('V');
      assertThat(r.failedClosed()).isFalse();
      assertThat(r.read(10L * BS, BS)).isEqualTo(Arrays.copyOfRange(im.data(), 10 * BS, 11 * BS));
    }
  }

  @Test
  void itNeedsAFailClosedMode() {
    for (CorruptionMode mode : new CorruptionMode[] {CorruptionMode.EIO, CorruptionMode.IGNORE}) {
      assertThatThrownBy(() -> ReaderOptions.DEFAULTS.withMode(mode).withErrorAsCorruption(true))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("RESTART or PANIC");
    }
    assertThat(errorAsCorruption(CorruptionMode.RESTART).errorAsCorruption()).isTrue();
    assertThat(ReaderOptions.DEFAULTS.errorAsCorruption()).isFalse();
  }

  /** Fails the reads that prefetch threads make: a hint's error, never the reads' own. */
  static final class FailingPrefetch extends DeviceWrapper {
    FailingPrefetch(BlockDevice in) {
      super(in);
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      if (Thread.currentThread().getName().startsWith("jverity-prefetch")) {
        throw new IOException(description() + ": injected prefetch error at " + offset);
      }
      in.readFully(offset, dst);
    }
  }

  @Test
  void aPrefetchErrorNeverCounts() throws Exception {
    TestImage im = TestImage.random(4096, BS, 184); // 16 MiB: sequential reads prefetch ahead
    try (VerifiedReader r =
            Readers.open(
                im,
                im.dataDevice(),
                new FailingPrefetch(im.hashDevice()),
                errorAsCorruption(CorruptionMode.RESTART));
        HashingPool pool = new HashingPool(2);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      for (long at = 0; at < 4096L * BS; at += 64 * BS) {
        assertThat(s.read(at, 64 * BS))
            .isEqualTo(Arrays.copyOfRange(im.data(), (int) at, (int) at + 64 * BS));
      }
      assertThat(s.failedPrefetches()).as("prefetches failed").isPositive();
      assertThat(r.corruptionCount()).isZero();
      assertThat(r.failedClosed()).isFalse();
    }
  }

  @Test
  void anInterruptIsNoDeviceError() throws Exception {
    TestImage im = TestImage.random(64, BS, 185);
    BlockDevice interrupted =
        new DeviceWrapper(im.dataDevice()) {
          @Override
          protected void read(long offset, ByteBuffer dst) throws IOException {
            throw new InterruptedIOException("interrupted");
          }
        };
    try (VerifiedReader r =
        Readers.open(im, interrupted, im.hashDevice(), errorAsCorruption(CorruptionMode.RESTART))) {
      assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(InterruptedIOException.class);
      assertThat(r.corruptionCount()).isZero();
      assertThat(r.failedClosed()).isFalse();
    }
  }
}
