package org.jverity.posix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.internal.NativeLibrary;

/** Both ways of making the C calls give the same results: libjverity.so's and the FFM API's. */
class CallsTest {
  private static final int O_RDONLY = 0;
  private static final int O_RDWR_CREAT = 2 | 0100;
  private static final int ENOENT = 2;
  private static final int EBADF = 9;

  @TempDir Path dir;

  static Stream<String> calls() {
    return Stream.of("jni", "ffm");
  }

  private static Calls make(String kind) {
    if (kind.equals("jni")) {
      // The build makes the library wherever the tests run (gcc and libssl-dev are test tools).
      assertThat(NativeLibrary.problem()).as("libjverity.so loaded").isNull();
      return new JniCalls();
    }
    return new FfmCalls();
  }

  @ParameterizedTest
  @MethodSource("calls")
  void readsWritesAndFailsAsTheCLibrary(String kind) throws Exception {
    assumeThat(System.getProperty("os.name")).isEqualTo("Linux"); // the flag values above
    Calls c = make(kind);
    Path file = dir.resolve("f");
    assertThat(c.open(dir.resolve("missing").toString(), O_RDONLY, 0)).isEqualTo(-ENOENT);
    int fd = c.open(file.toString(), O_RDWR_CREAT, 0644);
    assertThat(fd).isGreaterThanOrEqualTo(0);

    byte[] data = new byte[10000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 7);
    }
    // A heap segment at an offset into its array, a read-only one (written from a copy), a native
    // one.
    byte[] padded = new byte[data.length + 100];
    System.arraycopy(data, 0, padded, 50, data.length);
    MemorySegment heap = MemorySegment.ofArray(padded).asSlice(50, 4000);
    assertThat(c.pwrite(fd, heap, 0)).isEqualTo(4000);
    MemorySegment readOnly =
        MemorySegment.ofBuffer(ByteBuffer.wrap(data, 4000, 3000).asReadOnlyBuffer());
    assertThat(c.pwrite(fd, readOnly, 4000)).isEqualTo(3000);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment direct = arena.allocate(3000);
      MemorySegment.copy(data, 7000, direct, ValueLayout.JAVA_BYTE, 0, 3000);
      assertThat(c.pwrite(fd, direct, 7000)).isEqualTo(3000);
      assertThat(c.fsync(fd)).isZero();
      assertThat(c.seekEnd(fd)).isEqualTo(data.length);
      assertThat(Files.readAllBytes(file)).isEqualTo(data);

      MemorySegment into = arena.allocate(2000);
      assertThat(c.pread(fd, into, 9000)).as("short at the end").isEqualTo(1000);
      assertThat(into.asSlice(0, 1000).toArray(ValueLayout.JAVA_BYTE))
          .isEqualTo(Arrays.copyOfRange(data, 9000, 10000));
    }
    byte[] back = new byte[5000];
    assertThat(c.pread(fd, MemorySegment.ofArray(back).asSlice(1000, 3000), 100)).isEqualTo(3000);
    assertThat(Arrays.copyOfRange(back, 1000, 4000)).isEqualTo(Arrays.copyOfRange(data, 100, 3100));
    assertThat(back[999]).isZero();
    assertThat(back[4000]).as("nothing written past the slice").isZero();
    assertThat(c.pread(fd, MemorySegment.ofArray(back), data.length)).as("end of file").isZero();

    int copy = c.dup(fd);
    assertThat(copy).isGreaterThan(fd);
    assertThat(c.dup2(fd, copy)).isEqualTo(copy);
    assertThat(c.close(copy)).isZero();
    assertThat(c.close(fd)).isZero();
    assertThat(c.close(fd)).isEqualTo(-EBADF);
    assertThat(c.pread(fd, MemorySegment.ofArray(back), 0)).isEqualTo(-EBADF);
    assertThat(c.strerror(ENOENT)).isEqualTo("No such file or directory");
  }
}
