package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testing.Images;

class BlockDevicesTest {
  @TempDir Path tmp;

  @Test
  void mapsARegularFileAndReadsItsLargeRangesWithSystemCalls() throws IOException {
    byte[] contents = Images.random(30, 256 << 10);
    try (BlockDevice d = BlockDevices.openRead(Files.write(tmp.resolve("f"), contents))) {
      assertThat(d).isInstanceOf(SplitDevice.class);
      byte[] b = new byte[contents.length];
      d.readFully(0, b, 0, 8192);
      d.readFully(8192, b, 8192, b.length - 8192);
      assertThat(b).isEqualTo(contents);
    }
  }

  @Test
  void readsACharacterDeviceWithSystemCalls() throws IOException {
    Path zero = Path.of("/dev/zero");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "no /dev/zero");
    try (BlockDevice d = BlockDevices.openRead(zero)) {
      assertThat(d).isInstanceOf(FileDevice.class);
      byte[] b = {1, 2, 3};
      d.readFully(12345, b, 0, 3);
      assertThat(b).containsExactly(0, 0, 0);
    }
  }
}
