package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.jverity.testing.BlockDeviceContract;
import org.jverity.testing.Images;

/**
 * The contract with the split at 4 KiB, so that its reads of every size take both paths (the
 * contract's reads are up to 8 KiB); then what the split is for, counted as the kernel counts it.
 */
class SplitDeviceTest extends BlockDeviceContract {

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    return SplitDevice.open(file(contents), 4096);
  }

  @Override
  protected boolean supportsTruncation() {
    return true;
  }

  @Override
  protected void truncate(BlockDevice device, long size) throws IOException {
    try (FileChannel c =
        FileChannel.open(((SplitDevice) device).path(), StandardOpenOption.WRITE)) {
      c.truncate(size);
    }
  }

  @Test
  void largeReadsLeaveNoPageOfTheFileMappedIn() throws IOException {
    Path smaps = Path.of("/proc/self/smaps");
    assumeTrue(Files.isReadable(smaps), "no /proc/self/smaps: not Linux");
    byte[] contents = Images.random(50, 8 << 20);
    Path file = file(contents);
    try (SplitDevice d = SplitDevice.open(file)) {
      byte[] b = new byte[contents.length];
      for (int at = 0; at < b.length; at += SplitDevice.LARGE_READ) {
        d.readFully(at, b, at, SplitDevice.LARGE_READ);
      }
      assertThat(b).isEqualTo(contents);
      assertThat(residentKib(smaps, file)).as("KiB of the mapping resident").isZero();
      d.readFully(0, b, 0, 4096); // a small read is a copy out of the mapping
      assertThat(residentKib(smaps, file)).isPositive();
    }
  }

  @Test
  void aLargeReadPastTheSizeItOpenedWithIsEofEvenWhenTheFileGrew() throws IOException {
    try (SplitDevice d = SplitDevice.open(file(new byte[8192]), 4096)) {
      try (FileChannel c = FileChannel.open(d.path(), StandardOpenOption.WRITE)) {
        c.write(ByteBuffer.allocate(8192), 8192);
      }
      assertThat(d.size()).isEqualTo(8192);
      assertThatThrownBy(() -> d.readFully(4096, new byte[8192], 0, 8192))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("read of 8192 bytes at 4096");
    }
  }

  /** The Rss of {@code file}'s mapping in this process, from the kernel's own account. */
  private static long residentKib(Path smaps, Path file) throws IOException {
    List<String> lines = Files.readAllLines(smaps);
    String name = file.toRealPath().toString();
    long kib = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).endsWith(" " + name)) {
        for (int j = i + 1; j < lines.size() && !lines.get(j).matches("^[0-9a-f]+-.*"); j++) {
          if (lines.get(j).startsWith("Rss:")) {
            kib = Math.max(0, kib) + Long.parseLong(lines.get(j).replaceAll("[^0-9]", ""));
          }
        }
      }
    }
    assertThat(kib).as("a mapping of " + name + " in " + smaps).isNotNegative();
    return kib;
  }
}
