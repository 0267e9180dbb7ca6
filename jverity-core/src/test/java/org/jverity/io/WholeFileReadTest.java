package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WholeFileRead} reads a file whole through the native library (built with the module: the
 * test fails where it is missing), into the room it is given and no further; it reads past a size
 * that is out of date, says when the room filled first, and declines what it cannot name or open,
 * for the JDK to read and explain.
 */
class WholeFileReadTest {
  @Test
  void readsTheWholeFileIntoTheRoomGiven(@TempDir Path dir) throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    for (int size : new int[] {0, 1, 4095, 4096, 70_000, 200_000}) {
      byte[] bytes = new byte[size];
      r.nextBytes(bytes);
      Path f = Files.write(dir.resolve("f" + size), bytes);
      byte[] into = new byte[size + 300];
      Arrays.fill(into, (byte) 0x55);
      assertThat(WholeFileRead.read(f, size, into, 100, size + 200)).as("%d", size).isEqualTo(size);
      assertThat(Arrays.copyOfRange(into, 100, 100 + size)).isEqualTo(bytes);
      assertThat(into[99]).isEqualTo((byte) 0x55);
      assertThat(into[100 + size]).as("nothing past the file").isEqualTo((byte) 0x55);
      // a size seen before the file grew: still read to its end
      assertThat(WholeFileRead.read(f, size / 2, into, 0, size + 1)).isEqualTo(size);
      if (size > 0) {
        assertThat(WholeFileRead.read(f, size, into, 0, size - 1)).isEqualTo(WholeFileRead.FULL);
        assertThat(WholeFileRead.read(f, size, into, 0, size))
            .as("the room filled before the end was seen")
            .isEqualTo(WholeFileRead.FULL);
      }
    }
  }

  @Test
  void declinesWhatItCannotOpenOrName(@TempDir Path dir) throws Exception {
    byte[] into = new byte[100];
    assertThat(WholeFileRead.read(dir.resolve("nosuch"), 1, into, 0, 100))
        .isEqualTo(WholeFileRead.NOT_READ);
    assertThat(WholeFileRead.read(dir, 1, into, 0, 100))
        .as("a directory")
        .isEqualTo(WholeFileRead.NOT_READ);
    Path accented = Files.write(dir.resolve("caf\u00e9"), new byte[] {1, 2, 3});
    assertThat(WholeFileRead.read(accented, 3, into, 0, 100)).isEqualTo(WholeFileRead.NOT_READ);
    Path plain = Files.write(dir.resolve("plain"), new byte[] {1, 2, 3});
    assertThat(WholeFileRead.read(plain, 3, into, 98, 3))
        .as("room past the array")
        .isEqualTo(WholeFileRead.NOT_READ);
  }
}
