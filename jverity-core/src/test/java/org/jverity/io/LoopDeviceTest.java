package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testing.Images;
import org.jverity.testkit.Tool;

/**
 * Block device nodes report their size through lseek, not st_size (which is 0 for them). Needs root
 * and loop devices; fails (never skips quietly) when losetup does not work, unless the machine has
 * no loop driver at all.
 */
class LoopDeviceTest {
  private static final int SIZE = 1 << 20;
  private static final Tool LOSETUP = Tool.of("losetup").timeout(Duration.ofSeconds(30));

  @TempDir Path tmp;

  @Test
  void aLoopDeviceReportsItsRealSizeAndBytes() throws Exception {
    Path control = Path.of("/dev/loop-control");
    if (!Files.exists(control)) {
      String reason = "no " + control + ": this machine has no loop devices";
      System.out.println("LoopDeviceTest skipped: " + reason);
      assumeTrue(false, reason);
    }
    byte[] contents = Images.random(40, SIZE);
    Path image = Files.write(tmp.resolve("loop.img"), contents);
    String loop = losetup("-f", "--show", "-r", image.toString());
    try {
      Path dev = Path.of(loop);
      assertThat(Files.size(dev)).as("st_size of a block device, which we must not trust").isZero();
      try (FileDevice d = FileDevice.openRead(dev)) {
        assertThat(d.size()).isEqualTo(SIZE);
        checkTail(d, contents);
      }
      try (BlockDevice d = BlockDevices.openRead(dev)) {
        assertThat(d).isInstanceOf(SplitDevice.class); // mapped, its large reads with pread
        assertThat(d.size()).isEqualTo(SIZE);
        checkTail(d, contents);
      }
    } finally {
      losetup("-d", loop);
    }
  }

  private static void checkTail(BlockDevice d, byte[] contents) throws IOException {
    for (int length : new int[] {4096, 128 << 10}) { // a small read and a large one
      byte[] tail = new byte[length];
      d.readFully(SIZE - length, tail, 0, tail.length);
      assertThat(tail).isEqualTo(Arrays.copyOfRange(contents, SIZE - length, SIZE));
    }
  }

  /** Runs losetup; its trimmed stdout, or a test failure quoting its stderr. */
  private static String losetup(String... args) {
    return LOSETUP.check(args).out().trim();
  }
}
