package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * Issue 17, defect 7: {@code base:allocation} on an export served without ignore_zero_blocks, as
 * nbdkit offers it on every export. Blocks whose trusted digest is the zero block's are ZERO (they
 * read as zeros, or fail: never other bytes), so nbdcopy and qemu-img skip them; they are not holes
 * (they are read and verified when asked for). One image: 1,000 pseudo-random 4 KiB blocks, every
 * 16th zero, and a run of 100 zero blocks.
 */
class ZeroRunsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int BLOCK = 4096; // bytes
  private static final int BLOCKS = 1000;

  @TempDir static Path dir;
  private static ServedImage image;
  private static byte[] bytes;
  private static final LongAdder readBytes = new LongAdder(); // bytes the server sent in READs
  private static final NbdEvents events =
      new NbdEvents() {
        @Override
        public void request(String export, String command, long bytes, String error, long nanos) {
          if (command.equals("read")) {
            readBytes.add(bytes);
          }
        }
      };

  @BeforeAll
  static void serve() throws IOException {
    byte[] b = new byte[BLOCKS * BLOCK];
    SplittableRandom rnd = new SplittableRandom(17);
    for (int i = 0; i < BLOCKS; i++) {
      if (!trusted(i)) {
        for (int k = 0; k < BLOCK; k++) {
          b[i * BLOCK + k] = (byte) rnd.nextInt(256);
        }
      }
    }
    Path data = Files.write(dir.resolve("data.img"), b);
    image = ServedImage.format(dir, data, ReaderOptions.DEFAULTS, ServerLimits.DEFAULTS, events);
    bytes = b;
  }

  @AfterAll
  static void stop() throws IOException {
    if (image != null) {
      image.close();
    }
  }

  @Test
  @DisplayName(
      "nbdinfo --map without ignore_zero_blocks: type 2 (zero) exactly at the trusted zero blocks, type 0 (data) elsewhere")
  void nbdinfoMapShowsZeroRuns() {
    String out = Tool.of("nbdinfo").timeout(TIMEOUT).run("--map", image.unixUri()).ok().out();
    List<long[]> extents = new ArrayList<>(); // {offset, length, type}
    for (String line : out.strip().split("\n")) {
      String[] f = line.strip().split("\\s+", 4); // offset length type description
      extents.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
      assertThat(f[3]).as(line).isEqualTo(f[2].equals("2") ? "zero" : "data");
    }
    assertThat(extents).as(out).allSatisfy(e -> assertThat(e[2]).isIn(0L, 2L));

    assertThat(runs(zeroMap(extents))).as(out).isEqualTo(runs(trustedZeroBlocks()));
  }

  @Test
  @DisplayName("nbdcopy to a file skips the zero runs it can and writes the image's bytes")
  void nbdcopyOfZeroRunsIsIdentical() throws Exception {
    Path out = dir.resolve("copy.img");
    long before = readBytes.sum();

    Tool.of("nbdcopy").timeout(TIMEOUT).run(image.tcpUri(), out.toString()).ok();

    assertThat(RealClientsTest.sha256(Files.readAllBytes(out)))
        .isEqualTo(RealClientsTest.sha256(bytes));
    long zeros = 0;
    for (int i = 0; i < BLOCKS; i++) {
      zeros += trusted(i) ? BLOCK : 0;
    }
    // nbdcopy skips a request (256 KiB) that is zero throughout: the 100-block run holds one
    assertThat(readBytes.sum() - before)
        .as("bytes nbdcopy read: not the zero runs, all the data")
        .isLessThan((long) BLOCKS * BLOCK)
        .isGreaterThanOrEqualTo((long) BLOCKS * BLOCK - zeros);
  }

  /** Per block: is it ZERO according to extents that must tile [0, size) exactly? */
  private static boolean[] zeroMap(List<long[]> extents) {
    boolean[] zero = new boolean[BLOCKS];
    long at = 0;
    for (long[] e : extents) {
      assertThat(e[0]).as("extents are contiguous").isEqualTo(at);
      assertThat(e[0] % BLOCK).as("extent start %d is block aligned", e[0]).isZero();
      assertThat(e[1] % BLOCK).as("extent length %d is whole blocks", e[1]).isZero();
      for (long b = e[0] / BLOCK; b < (e[0] + e[1]) / BLOCK; b++) {
        zero[(int) b] = e[2] == 2;
      }
      at += e[1];
    }
    assertThat(at).as("extents end at the export's end").isEqualTo(bytes.length);
    return zero;
  }

  /** The zero blocks as runs, "5 21 37 ... 300-399 ...": a failure shows where they differ. */
  private static String runs(boolean[] zero) {
    StringBuilder s = new StringBuilder();
    for (int b = 0; b < zero.length; b++) {
      if (zero[b]) {
        int from = b;
        while (b + 1 < zero.length && zero[b + 1]) {
          b++;
        }
        s.append(from == b ? from + " " : from + "-" + b + " ");
      }
    }
    return s.toString().strip();
  }

  /** Whether block {@code b} is zeros in the image the tree was built over. */
  private static boolean trusted(int b) {
    return b % 16 == 5 || (b >= 300 && b < 400);
  }

  private static boolean[] trustedZeroBlocks() {
    boolean[] zero = new boolean[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
      zero[b] = trusted(b);
    }
    return zero;
  }
}
