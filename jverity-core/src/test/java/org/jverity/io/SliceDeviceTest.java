package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.jverity.testing.BlockDeviceContract;
import org.jverity.testing.Images;

/**
 * The contract on a range in the middle of a larger device (its neighbours' bytes differ from the
 * range's), then the range's own rules.
 */
class SliceDeviceTest extends BlockDeviceContract {
  private static final int BEFORE = 3 * 4096;
  private static final int AFTER = 5 * 4096;

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    byte[] disk = Images.random(71, BEFORE + contents.length + AFTER);
    System.arraycopy(contents, 0, disk, BEFORE, contents.length);
    return SliceDevice.of(new MemoryDevice("disk", disk), BEFORE, contents.length, "slice");
  }

  @Override
  protected boolean refusesReadsAfterClose() {
    return false; // a MemoryDevice reads on after close
  }

  @Test
  void neverReadsPastItsEndIntoTheNextRange() throws IOException {
    byte[] disk = Images.random(72, 16384);
    try (SliceDevice s = SliceDevice.of(new MemoryDevice("disk", disk), 4096, 8192, "part 2")) {
      byte[] b = new byte[4096];
      s.readFully(4096, b, 0, b.length);
      assertThat(b).isEqualTo(Arrays.copyOfRange(disk, 8192, 12288));
      assertThatThrownBy(() -> s.readFully(4097, b, 0, b.length))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("part 2");
    }
  }

  @Test
  void refusesARangeBeyondTheDevice() {
    MemoryDevice disk = new MemoryDevice("disk", new byte[8192]);
    assertThatThrownBy(() -> SliceDevice.of(disk, 4096, 8192, "part 1"))
        .isInstanceOf(EOFException.class)
        .hasMessage("part 1: bytes 4096..12288 of disk (expected: within its 8192 bytes)");
  }
}
