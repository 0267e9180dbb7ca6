package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.jverity.cli.command.ExitCode;

/**
 * {@code jverity demo}, run once on a 1 MiB image: the commands it prints paste into a shell and do
 * what it showed, its rates are its sizes over its times, and its block numbers and positions agree
 * with what verify and veritysetup print.
 */
class DemoCommandTest {
  static final long SIZE = 1 << 20;

  static ToolRun demo;
  static Path kept;

  @BeforeAll
  static void runDemo() {
    demo = Jverity.run("demo", "--size-mib", "1", "--keep");
    Matcher m = Pattern.compile("Kept (\\S+):").matcher(demo.stdout());
    kept = m.find() ? Path.of(m.group(1)) : null;
  }

  @AfterAll
  static void deleteKept() throws IOException {
    if (kept != null && Files.isDirectory(kept)) {
      try (Stream<Path> s = Files.walk(kept)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void succeedsAndKeepsTheFolder() {
    assertThat(demo.exitCode()).as("%s", demo).isZero();
    assertThat(kept).as("%s", demo).isNotNull().isDirectory();
    assertThat(demo.stderr()).isEmpty();
  }

  /** The $ lines of jverity, in order: format, verify, corrupt verify, read, wrong-root read. */
  static List<String> jverityLines() {
    return demo.stdoutLines().stream()
        .filter(l -> l.startsWith("   $ ") && !l.contains("veritysetup "))
        .map(l -> l.substring(5))
        .toList();
  }

  @Test
  void itsCommandsPasteIntoAShellAndExitAsShown() throws Exception {
    List<String> lines = jverityLines();
    assertThat(lines).as("%s", demo).hasSize(5);
    // format again (into the kept folder), verify, the corrupted copy, read, a wrong root hash
    int[] exits = {0, 0, ExitCode.CORRUPTION, 0, ExitCode.ROOT_HASH_MISMATCH};
    for (int i = 0; i < lines.size(); i++) {
      Process p =
          Jverity.detailed(new ProcessBuilder("sh", "-c", lines.get(i)))
              .redirectErrorStream(true)
              .start();
      String output = new String(p.getInputStream().readAllBytes());
      assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(p.exitValue()).as("%s%n%s", lines.get(i), output).isEqualTo(exits[i]);
      for (String said : output.lines().filter(l -> l.startsWith("jverity: ")).toList()) {
        assertThat(demo.stdout()).as("the demo showed what the command says").contains(said);
      }
    }
  }

  @Test
  void everyRateIsTheSizeOverTheTime() {
    Matcher m =
        Pattern.compile("(\\d+) bytes (?:in|/) (\\d+\\.\\d{3}) s = (\\d+) MB/s")
            .matcher(demo.stdout());
    int n = 0;
    while (m.find()) {
      n++;
      assertRate(Long.parseLong(m.group(1)), m.group(2), Long.parseLong(m.group(3)));
    }
    assertThat(n)
        .as("rate lines in %s", demo)
        .isEqualTo(6); // 3 processes, the reads, warm format and verify

    Pattern row =
        Pattern.compile(
            "   (format|verify) +(\\d+\\.\\d{3}) s +(\\d+) MB/s +(\\d+\\.\\d{3}) s +(\\d+) MB/s"
                + " +(\\d+\\.\\d\\d)");
    Matcher r = row.matcher(demo.stdout());
    int rows = 0;
    while (r.find()) {
      rows++;
      assertRate(SIZE, r.group(2), Long.parseLong(r.group(3)));
      assertRate(SIZE, r.group(4), Long.parseLong(r.group(5)));
      // the ratio of the times as printed, within their rounding to a millisecond
      double j = Double.parseDouble(r.group(2));
      double v = Double.parseDouble(r.group(4));
      assertThat(Double.parseDouble(r.group(6)))
          .as(r.group())
          .isBetween(
              (v - 0.0005) / (j + 0.0005) - 0.005,
              (v + 0.0005) / Math.max(1e-9, j - 0.0005) + 0.005);
    }
    assertThat(rows).as("format and verify rows in %s", demo).isEqualTo(2);
  }

  /**
   * {@code mbPerSecond} is {@code bytes} over a time that printed as {@code seconds} (rounded to 1
   * ms), rounded.
   */
  static void assertRate(long bytes, String seconds, long mbPerSecond) {
    double t = Double.parseDouble(seconds);
    double fastest = bytes / Math.max(1e-9, t - 0.0005) / 1e6;
    double slowest = bytes / (t + 0.0005) / 1e6;
    assertThat((double) mbPerSecond)
        .as("%d bytes in %s s = %d MB/s", bytes, seconds, mbPerSecond)
        .isBetween(Math.floor(slowest - 0.5), Math.ceil(fastest + 0.5));
  }

  @Test
  void blockNumbersAndPositionsAgreeWithVerifyAndVeritysetup() {
    Matcher m =
        Pattern.compile("data block (\\d+) starts at byte \\1 x 4096 = (\\d+), its position")
            .matcher(demo.stdout().replaceAll("\\s+", " "));
    assertThat(m.find()).as("%s", demo).isTrue();
    long block = Long.parseLong(m.group(1));
    long position = Long.parseLong(m.group(2));
    assertThat(position).isEqualTo(block * 4096);
    assertThat(demo.stdout())
        .contains("jverity: data block " + block + " (position " + position + ") is corrupted")
        .contains("Verification failed at position " + position + ".");
    assertThat(demo.stdout().replaceAll("\\s+", " "))
        .contains(
            "block 0 holds the superblock, then the levels, top first: level 1 is block 1, level 0 is"
                + " blocks 2 to 3.")
        .contains("hash block 3 holds those of data blocks 128 to 255");
  }

  @Test
  void warmFiguresAreLabelledAndNotCompared() {
    assertThat(demo.stdout())
        .contains("whole processes, best of 3 runs each")
        .contains("Not comparable with step 6: no process starts here");
  }
}
