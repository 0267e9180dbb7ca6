package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 27, items 7 and 8: Ctrl-C (SIGINT) or SIGTERM while a command writes an output leaves no
 * hidden temporary beside it, and the output as it was: an earlier good one, byte for byte, or
 * none. veritysetup format, stopped so, leaves a hash file half written over the old tree, which
 * {@code dump} reads as valid; {@code format} here writes it beside and renames. A temporary a
 * killed run left (SIGKILL: no hook runs) is removed by the next run to that output, and only when
 * its name proves its process gone: one of a live process, or of an older jverity, stays.
 */
class InterruptedOutputTest {
  private static final long SIZE = 2L << 30; // sparse: seconds of hashing on one thread

  @TempDir static Path made; // the data, its tree and its fs-verity tree: made once
  static Path data;
  static String root;
  static String digest;
  @TempDir Path dir; // a test's outputs, copies of the good ones
  Path hash;
  Path tree;
  Path out;
  final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void image() throws IOException {
    data = made.resolve("data.img");
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(SIZE);
      f.write("not all zeros".getBytes());
    }
    ToolRun f =
        Jverity.run(
            "format", data.toString(), made.resolve("data.hash").toString(), "--salt", "27");
    assertThat(f.exitCode()).as("%s", f).isZero();
    root = f.headerField("Root hash").strip();
    ToolRun d =
        Jverity.run(
            "digest", data.toString(), "--out-merkle-tree", made.resolve("data.tree").toString());
    assertThat(d.exitCode()).as("%s", d).isZero();
    digest = d.stdout().split(" ")[0];
  }

  @BeforeEach
  void outputs() throws IOException {
    hash = Files.copy(made.resolve("data.hash"), dir.resolve("data.hash"));
    tree = Files.copy(made.resolve("data.tree"), dir.resolve("data.tree"));
    out = Files.writeString(dir.resolve("out.img"), "an earlier output, kept\n");
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest(name = "{0} during {1}")
  @CsvSource({
    "TERM, read",
    "INT, read",
    "TERM, cat",
    "INT, cat",
    "TERM, digest",
    "INT, digest",
    "TERM, format",
    "INT, format",
  })
  void aSignalMidWriteLeavesNoTemporaryAndTheOutputAsItWas(String signal, String command)
      throws Exception {
    Path target = command.equals("format") ? hash : command.equals("digest") ? tree : out;
    byte[] before = Files.readAllBytes(target);
    Process p = start(args(command));
    waitForTemporary(p, target);
    signal(p, signal);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("ended after SIG" + signal).isTrue();
    String log = Files.readString(dir.resolve("child.log"));
    assertThat(p.exitValue())
        .as("killed by the signal, mid-write (not finished first): " + log)
        .isEqualTo(128 + (signal.equals("TERM") ? 15 : 2));
    assertThat(temporaries()).as(log).isEmpty();
    assertThat(Files.readAllBytes(target)).as("the output as it was").isEqualTo(before);
  }

  @Test
  void aFormatStoppedOverNoHashFileLeavesNone() throws Exception {
    Path fresh = dir.resolve("new.hash");
    Process p = start("format", data.toString(), fresh.toString(), "--threads", "1");
    waitForTemporary(p, fresh);
    signal(p, "TERM");
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(143);
    assertThat(fresh).doesNotExist();
    assertThat(temporaries()).isEmpty();
  }

  @Test
  void theNextRunRemovesATemporaryItsKilledProcessLeftAndKeepsOthers() throws Exception {
    Process p = start(args("read"));
    Path left = waitForTemporary(p, out);
    signal(p, "KILL"); // no hook runs: the temporary stays
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(left).exists();
    // One stamped by a live process (this one), and one of an older jverity (no stamp): kept.
    String[] stamp = left.getFileName().toString().split("\\.")[2].split("-");
    String self = ProcessHandle.current().pid() + "-" + Long.toHexString(startOfThisProcess());
    Path live = dir.resolve(".out.img." + stamp[0] + "-" + self + "-1.jverity-tmp");
    Path older = dir.resolve(".out.img.5eedf00d.jverity-tmp");
    Files.writeString(live, "a live process's");
    Files.writeString(older, "an older jverity's");

    ToolRun again =
        Jverity.run(
            "read",
            "--length",
            "4096",
            "-o",
            out.toString(),
            data.toString(),
            hash.toString(),
            root);
    assertThat(again.exitCode()).as("%s", again).isZero();
    assertThat(left).as("the killed process's").doesNotExist();
    assertThat(temporaries()).containsExactlyInAnyOrder(live, older);
  }

  private List<String> args(String command) {
    return switch (command) {
      case "read" -> List.of("read", "-o", out.toString(), data.toString(), hash.toString(), root);
      case "cat" ->
          List.of(
              "cat",
              "--merkle-tree=" + tree,
              "--digest=" + digest,
              "-o",
              out.toString(),
              data.toString());
      case "digest" ->
          List.of(
              "digest", "--threads", "1", "--out-merkle-tree", tree.toString(), data.toString());
      case "format" ->
          List.of("format", "--threads", "1", "--salt", "28", data.toString(), hash.toString());
      default -> throw new IllegalArgumentException(command);
    };
  }

  private Process start(String... args) throws IOException {
    return start(Arrays.asList(args));
  }

  private Process start(List<String> args) throws IOException {
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(args);
    Process p =
        Jverity.detailed(new ProcessBuilder(cmd))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    started.add(p);
    return p;
  }

  /** The temporary beside {@code output}, once it holds bytes: the command is writing. */
  private Path waitForTemporary(Process p, Path output) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (p.isAlive() && System.nanoTime() < deadline) {
      for (Path t : temporaries()) {
        if (t.getFileName().toString().startsWith("." + output.getFileName() + ".")
            && Files.size(t) > 0) {
          return t;
        }
      }
      Thread.sleep(2);
    }
    throw new AssertionError(
        "no temporary appeared beside "
            + output
            + " (alive: "
            + p.isAlive()
            + "): "
            + Files.readString(dir.resolve("child.log")));
  }

  private List<Path> temporaries() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(f -> f.getFileName().toString().endsWith(".jverity-tmp")).toList();
    }
  }

  private static void signal(Process p, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
    assertThat(kill.waitFor()).isZero();
  }

  /** Field 22 of /proc/self/stat: when this process started, in clock ticks since boot. */
  private static long startOfThisProcess() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]);
  }
}
