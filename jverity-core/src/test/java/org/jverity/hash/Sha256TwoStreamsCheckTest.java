package org.jverity.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testing.TwoStreams;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * The two-stream SHA-256 (src/main/c/sha256_x2.c) against a plain C SHA-256 written from FIPS 180-4
 * (src/test/c/sha256_x2_check.c), blocks of 1 to 4200 bytes, salts of 0 to 200 bytes before and
 * after: built for this machine and run where its CPU has the instructions, and built for arm64
 * (the ARMv8 SHA-2 path, which no machine here runs natively) and run under qemu. A path that gives
 * one wrong digest fails; the arm64 one must also be chosen there, and not with
 * JVERITY_SHA256_X2=off.
 */
class Sha256TwoStreamsCheckTest {
  private static final Path C = Path.of("src/main/c");
  private static final Path CHECK = Path.of("src/test/c/sha256_x2_check.c");

  @Test
  void thisMachinesPathGivesTheDigestsOfPlainSha256(@TempDir Path dir) throws Exception {
    Path exe = dir.resolve("check");
    build("gcc", exe);
    Run r = run(exe);
    if (TwoStreams.cpuHasShaNi()) {
      assertThat(r.exit()).as("%s", r).isZero();
      assertThat(r.out()).startsWith("two streams: 1292 digests");
    } else {
      assertThat(r.exit()).as("no SHA-NI here: the path says it is absent; %s", r).isEqualTo(3);
    }
  }

  /** A run of the check built for this machine: not a tool of bin/tools.tsv. */
  private record Run(int exit, String out) {}

  private static Run run(Path exe) throws Exception {
    Process p = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the check ended").isTrue();
    return new Run(p.exitValue(), out);
  }

  @Test
  void theArm64PathGivesTheDigestsOfPlainSha256UnderQemu(@TempDir Path dir) {
    Path exe = dir.resolve("check-arm64");
    build("aarch64-linux-gnu-gcc", exe);
    ToolResult r = Tool.of("qemu-aarch64-static").run(exe.toString());
    assertThat(r.exit()).as("%s", r).isZero();
    assertThat(r.out()).startsWith("two streams: 1292 digests");
    ToolResult off =
        Tool.of("qemu-aarch64-static").env("JVERITY_SHA256_X2", "off").run(exe.toString());
    assertThat(off.exit()).as("turned off: %s", off).isEqualTo(3);
  }

  private static void build(String compiler, Path exe) {
    Tool.of(compiler)
        .run(
            "-O2",
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-static",
            "-I" + C,
            "-o",
            exe.toString(),
            CHECK.toString(),
            C.resolve("sha256_x2.c").toString())
        .ok();
  }
}
