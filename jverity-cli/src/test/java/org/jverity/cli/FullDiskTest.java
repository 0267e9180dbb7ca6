package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;

/**
 * Issue 27, items 8 and 15: a full disk (a 1 MiB tmpfs) fails the command in one line naming the
 * output as the user typed it (not its hidden temporary; before, "No space left on device" named
 * nothing), exit 4, and leaves an earlier output as it was. veritysetup, the peer, fails too but
 * leaves the hash file cut short. Needs root to mount the tmpfs; skips, saying why, without.
 */
class FullDiskTest {
  @TempDir Path dir;
  Path small;
  Path data;

  @BeforeEach
  void mount() throws Exception {
    small = Files.createDirectory(dir.resolve("small"));
    Process m =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1M", "none", small.toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(m.getInputStream().readAllBytes());
    if (!m.waitFor(30, TimeUnit.SECONDS) || m.exitValue() != 0) {
      Assumptions.abort("FullDiskTest needs root to mount a 1 MiB tmpfs: " + said.strip());
    }
    data = dir.resolve("data.img"); // a 1.6 MiB tree: more than the tmpfs holds
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(200L << 20);
    }
  }

  @AfterEach
  void unmount() throws Exception {
    new ProcessBuilder("umount", small.toString())
        .inheritIO()
        .start()
        .waitFor(30, TimeUnit.SECONDS);
  }

  @Test
  void formatOnAFullDiskNamesTheHashFileAndKeepsTheOldOne() throws Exception {
    Path hash = small.resolve("data.hash");
    byte[] old = "an earlier hash file".getBytes();
    Files.write(hash, old);
    ToolRun r = Jverity.run("format", data.toString(), hash.toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderr().strip().lines())
        .singleElement()
        .asString()
        .startsWith("jverity: " + hash + ": cannot write at byte ")
        .endsWith(": no space left on device");
    assertThat(Files.readAllBytes(hash)).isEqualTo(old);
    assertThat(leftovers()).isEmpty();

    ToolResult vs = Veritysetup.run("format", data.toString(), hash.toString());
    assertThat(vs.exit()).as("veritysetup fails too").isNotZero();
    Path whole = dir.resolve("whole.hash");
    assertThat(Jverity.run("format", data.toString(), whole.toString()).exitCode()).isZero();
    assertThat(Files.size(hash))
        .as("veritysetup's hash file, cut short")
        .isLessThan(Files.size(whole));
  }

  @Test
  void readOnAFullDiskNamesTheOutput() throws Exception {
    Path hash = dir.resolve("data.hash");
    ToolRun f = Jverity.run("format", data.toString(), hash.toString());
    assertThat(f.exitCode()).as("%s", f).isZero();
    Path out = small.resolve("out.img");
    ToolRun r =
        Jverity.run(
            "read",
            "--length",
            Long.toString(4L << 20),
            "-o",
            out.toString(),
            data.toString(),
            hash.toString(),
            f.headerField("Root hash").strip());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderr().strip().lines())
        .singleElement()
        .asString()
        .startsWith("jverity: " + out + ": cannot write at byte ")
        .endsWith(": no space left on device");
    assertThat(out).doesNotExist();
    assertThat(leftovers()).isEmpty();
  }

  /**
   * An output the user may not write (immutable: even root may not) is refused naming it as typed;
   * before, the rename failed naming the hidden temporary ({@code .out.img.1f2e.jverity-tmp ->
   * out.img: Operation not permitted}).
   */
  @Test
  void anOutputThatMayNotBeWrittenIsNamedNotItsTemporary() throws Exception {
    Path hash = dir.resolve("data.hash");
    ToolRun f = Jverity.run("format", data.toString(), hash.toString());
    assertThat(f.exitCode()).as("%s", f).isZero();
    Path out = Files.writeString(dir.resolve("out.img"), "kept");
    Process chattr = new ProcessBuilder("chattr", "+i", out.toString()).inheritIO().start();
    if (chattr.waitFor() != 0) {
      Assumptions.abort("chattr +i failed on " + dir + ": no immutable files here");
    }
    try {
      ToolRun r =
          Jverity.run(
              "read",
              "--length",
              "4096",
              "-o",
              out.toString(),
              data.toString(),
              hash.toString(),
              f.headerField("Root hash").strip());
      assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
      assertThat(r.stderr()).isEqualTo("jverity: " + out + ": permission denied\n");
      assertThat(Files.readString(out)).isEqualTo("kept");
      try (Stream<Path> s = Files.list(dir)) {
        assertThat(s.map(p -> p.getFileName().toString()))
            .noneMatch(n -> n.endsWith(".jverity-tmp"));
      }
    } finally {
      new ProcessBuilder("chattr", "-i", out.toString()).inheritIO().start().waitFor();
    }
  }

  private List<Path> leftovers() throws IOException {
    try (Stream<Path> s = Files.list(small)) {
      return s.filter(p -> !p.getFileName().toString().equals("data.hash")).toList();
    }
  }
}
