package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * A block device as the data device: {@code Files.size} says 0 for {@code /dev/loopN}, so every
 * size must come from the opened device. jverity and veritysetup format the same loop device and
 * must write the same tree. Needs root and a free loop device; skips, saying why, only when no loop
 * device can be attached (veritysetup missing still fails, as in every compatibility test).
 */
class LoopDeviceTest {
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";
  static final int SIZE = 4 << 20; // bytes

  @TempDir Path dir;
  byte[] bytes;
  String loop; // /dev/loopN, null until attached

  @BeforeEach
  void attach() throws Exception {
    bytes = new byte[SIZE];
    new java.util.Random(4).nextBytes(bytes);
    Path file = Files.write(dir.resolve("backing.img"), bytes);
    String[] result = losetup("-f", "--show", file.toString());
    if (!result[0].equals("0")) {
      String reason =
          "no loop device could be attached (losetup -f --show: exit "
              + result[0]
              + ", "
              + result[1].strip()
              + "); LoopDeviceTest needs root and /dev/loop-control";
      System.err.println("SKIPPED LoopDeviceTest: " + reason);
      Assumptions.abort(reason);
    }
    loop = result[1].strip();
    assertThat(loop).startsWith("/dev/loop");
    assertThat(Files.size(Path.of(loop))).as("what Files.size says for %s", loop).isZero();
  }

  @AfterEach
  void detach() throws Exception {
    if (loop != null) {
      String[] result = losetup("-d", loop);
      assertThat(result[0]).as("losetup -d %s: %s", loop, result[1]).isEqualTo("0");
    }
  }

  @Test
  void formatsVerifiesAndReadsALoopDeviceAsVeritysetupDoes() throws Exception {
    Path jvHash = dir.resolve("jv.hash");
    Path vsHash = dir.resolve("vs.hash");
    ToolRun jv = Jverity.run("format", loop, jvHash.toString(), "--salt", SALT, "--uuid", UUID);
    ToolRun vs =
        VeritysetupOracle.run("format", loop, vsHash.toString(), "--salt", SALT, "--uuid", UUID);
    assertThat(jv.exitCode()).as("%s", jv).isZero();
    assertThat(vs.exitCode()).as("%s", vs).isZero();
    assertThat(jv.headerField("Data blocks")).isEqualTo(String.valueOf(SIZE / 4096));
    String root = vs.headerField("Root hash");
    assertThat(jv.headerField("Root hash")).isEqualTo(root);
    assertThat(Files.readAllBytes(jvHash)).isEqualTo(Files.readAllBytes(vsHash));

    ToolRun verify = Jverity.run("verify", loop, vsHash.toString(), root);
    assertThat(verify.exitCode()).as("%s", verify).isZero();
    Path out = dir.resolve("out.bin");
    ToolRun read =
        Jverity.run(
            "read",
            loop,
            jvHash.toString(),
            jv.headerField("Identity"),
            "--offset",
            "1M",
            "--length",
            "2M",
            "-o",
            out.toString());
    assertThat(read.exitCode()).as("%s", read).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOfRange(bytes, 1 << 20, 3 << 20));
  }

  @Test
  void withoutASuperblockTheDataBlocksComeFromTheDeviceSize() throws Exception {
    Path hash = dir.resolve("bare.hash");
    ToolRun f = Jverity.run("format", loop, hash.toString(), "--salt", SALT, "--no-superblock");
    assertThat(f.exitCode()).as("%s", f).isZero();
    ToolRun v =
        Jverity.run(
            "verify",
            loop,
            hash.toString(),
            f.headerField("Root hash"),
            "--salt",
            SALT,
            "--no-superblock");
    assertThat(v.exitCode()).as("%s", v).isZero();
    ToolRun vs =
        VeritysetupOracle.run(
            "verify",
            loop,
            hash.toString(),
            f.headerField("Root hash"),
            "--salt",
            SALT,
            "--no-superblock");
    assertThat(vs.exitCode()).as("%s", vs).isZero();
  }

  /** Runs losetup; returns {exit code, stdout and stderr}. */
  private static String[] losetup(String... args) {
    ToolResult r = Tool.of("losetup").timeout(Duration.ofSeconds(30)).run(args);
    return new String[] {String.valueOf(r.exit()), r.out() + r.stderr()};
  }
}
