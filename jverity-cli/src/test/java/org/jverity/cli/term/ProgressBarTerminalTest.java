package org.jverity.cli.term;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.ToolRun;

/**
 * The progress bar as a user sees it: jverity runs in a child JVM on a pseudo-terminal made by
 * util-linux {@code script}, and what reaches the terminal is taken apart into frames. The child
 * JVM stops at C1, whose hashing is slow enough that a 64 MiB image takes well over the 200 ms
 * before the first frame.
 */
class ProgressBarTerminalTest {
  static final long SIZE = 64L << 20;

  @TempDir static Path dir;
  static Path data;
  static Path hash;
  static String root;

  @BeforeAll
  static void image() throws IOException {
    data = dir.resolve("zeros.img");
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(SIZE); // sparse: zeros cost no disk
    }
    hash = dir.resolve("zeros.hash");
    ToolRun r = Jverity.run("format", data.toString(), hash.toString(), "--salt", "00");
    assertThat(r.exitCode()).as("%s", r).isZero();
    root = r.headerField("Root hash").strip();
  }

  /**
   * Runs jverity on a terminal of the given $COLUMNS (null: unset); returns what the terminal got.
   */
  static String onTerminal(String columns, String... args) throws Exception {
    List<String> java = ServerProcess.javaCommand();
    java.addAll(Arrays.asList(args));
    String command =
        java.stream()
            .map(a -> "'" + a.replace("'", "'\\''") + "'")
            .collect(Collectors.joining(" "));
    ProcessBuilder b =
        Jverity.detailed(new ProcessBuilder("script", "-qec", command, "/dev/null"))
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    b.environment().remove("COLUMNS");
    b.environment().remove("JVERITY_NO_PROGRESS");
    if (columns != null) {
      b.environment().put("COLUMNS", columns);
    }
    Process p;
    try {
      p = b.start();
    } catch (IOException e) {
      throw new AssertionError(
          "needs util-linux script (apt-get install bsdutils): " + e.getMessage(), e);
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as("exit code; terminal got: %s", out).isZero();
    return out;
  }

  /** The frames drawn: text between carriage returns, without the erase-to-end-of-line code. */
  static List<String> frames(String terminal) {
    List<String> frames = new ArrayList<>();
    for (String f : terminal.split("[\r\n]+")) {
      String text = f.replace("\033[K", "");
      if (!text.isEmpty()) {
        frames.add(text);
      }
    }
    return frames;
  }

  @ParameterizedTest(name = "{0} on {1} columns")
  @CsvSource({"read, 60", "verify, 100", "read, "})
  void barsFitTheTerminalAndEndAt100Percent(String command, String columns) throws Exception {
    List<String> args = new ArrayList<>(List.of(command, data.toString(), hash.toString(), root));
    if (command.equals("read")) {
      args.addAll(List.of("-o", "/dev/null"));
    }
    String terminal = onTerminal(columns, args.toArray(String[]::new));
    List<String> frames = frames(terminal);
    int width =
        columns == null
            ? TerminalColumns.DEFAULT
            : Integer.parseInt(columns); // script's pty says 0 0
    assertThat(frames).as("terminal got: %s", terminal).hasSizeGreaterThanOrEqualTo(2);
    // verify's total also counts the tree's own levels it hashes (0.5 MiB here)
    String total = command.equals("read") ? "64.0 MiB" : "64.5 MiB";
    Pattern frame =
        Pattern.compile(
            Pattern.quote(command)
                + " \\[[#.]+\\] +\\d+%  [\\d.]+ [KMG]?i?B / "
                + Pattern.quote(total)
                + "(  \\d+ MB/s)?");
    for (String f : frames) {
      assertThat(f).as("terminal got: %s", terminal).matches(frame);
      assertThat(f.length()).as("frame %s", f).isLessThan(width);
    }
    assertThat(frames.getLast())
        .contains("] 100%  " + total + " / " + total)
        .doesNotContain(".]")
        .contains("MB/s");
    assertThat(terminal).as("the last frame stays, on a line of its own").endsWith("\r\n");
  }

  @Test
  void verifyImageShowsEachPartitionsHashingThenErasesItForTheLineThatSaysWhatVerified()
      throws Exception {
    Path avb = dir.resolve("disk.img");
    try (RandomAccessFile f = new RandomAccessFile(avb.toFile(), "rw")) {
      f.setLength(SIZE);
    }
    ToolRun add =
        Jverity.run(
            "avb",
            "add_hashtree_footer",
            "--image",
            avb.toString(),
            "--partition_name",
            "disk",
            "--salt",
            "00");
    assertThat(add.exitCode()).as("%s", add).isZero();
    String terminal =
        onTerminal(null, "avb", "verify_image", "--image", avb.toString(), "--accept_unsigned");
    String verified =
        "disk: Successfully verified sha1 hashtree of " + avb + " for image of " + SIZE + " bytes";
    List<String> bars =
        frames(terminal).stream().filter(f -> f.startsWith("verify_image ")).toList();
    assertThat(bars).as("terminal got: %s", terminal).isNotEmpty();
    // the data and tree hashed (avbtool's default sha1), then read again for the FEC's parity
    Pattern frame =
        Pattern.compile(
            "verify_image disk hashtree \\[[#.]+\\] +\\d+%  [\\d.]+ [KMG]?i?B / 129\\.7 MiB"
                + "(  \\d+ MB/s)?");
    for (String f : bars) {
      assertThat(f).as("terminal got: %s", terminal).matches(frame);
    }
    assertThat(terminal)
        .as("the bar is erased, and the line saying what verified starts clean")
        .contains("\r\033[K" + verified + "\r\n");
  }

  @Test
  void nothingIsDrawnWhenStderrIsNotATerminal() throws Exception {
    List<String> java = ServerProcess.javaCommand();
    java.addAll(List.of("read", data.toString(), hash.toString(), root, "-o", "/dev/null"));
    Path err = dir.resolve("stderr.txt");
    Process p = Jverity.detailed(new ProcessBuilder(java)).redirectError(err.toFile()).start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readString(err)).isEmpty();
  }
}
