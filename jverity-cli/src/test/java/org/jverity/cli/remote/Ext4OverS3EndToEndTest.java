package org.jverity.cli.remote;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ServerProcess;
import org.jverity.testkit.Ext4Mount;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * ext4 on S3: an image made by {@code mkfs.ext4 -d} from a few files, its tree made by {@code
 * veritysetup format}, both uploaded to s3proxy (SigV4 on); {@code jverity open s3://... s3://...}
 * serves it with the test's keys in the child's environment and no readable ~/.aws, and the kernel
 * mounts it through nbdfuse, {@code losetup -r} and {@code mount -o ro}: every file reads back as
 * written. Needs root, /dev/fuse and loop devices (skipped, saying so, without the devices).
 */
class Ext4OverS3EndToEndTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern ROOT = Pattern.compile("(?m)^Root hash:\\s+([0-9a-f]+)\\s*$");

  @TempDir Path dir;

  @BeforeAll
  static void devicesArePresent() {
    for (String device : List.of("/dev/fuse", "/dev/loop-control")) {
      if (!Files.exists(Path.of(device))) {
        System.out.println("Ext4OverS3EndToEndTest skipped: " + device + " is absent");
      }
      Assumptions.assumeTrue(Files.exists(Path.of(device)), device + " is absent on this machine");
    }
    var id = Tool.of("id").timeout(TIMEOUT).run("-u").ok();
    if (!id.out().strip().equals("0")) {
      fail("Ext4OverS3EndToEndTest needs root (losetup, mount), runs as uid %s", id.out().strip());
    }
  }

  private static Map<String, byte[]> files() {
    Map<String, byte[]> files = new LinkedHashMap<>();
    int[] sizes = {0, 1, 4095, 4096, 4097, 65_537, 300_001, 1_000_000, 2_500_000};
    for (int i = 0; i < sizes.length; i++) {
      byte[] b = new byte[sizes[i]];
      new SplittableRandom(i).nextBytes(b);
      files.put("f%02d.bin".formatted(i), b);
    }
    files.put("sub/nested.txt", "a file in a directory\n".repeat(500).getBytes(UTF_8));
    return files;
  }

  @Test
  void ext4FromS3MountsThroughNbdfuseAndEveryFileReadsBack() throws Exception {
    Map<String, byte[]> files = files();
    Path src = Files.createDirectories(dir.resolve("src"));
    for (var f : files.entrySet()) {
      Files.createDirectories(src.resolve(f.getKey()).getParent());
      Files.write(src.resolve(f.getKey()), f.getValue());
    }
    Path img = dir.resolve("ext4.img");
    Tool.of("mkfs.ext4")
        .timeout(TIMEOUT)
        .run("-q", "-b", "4096", "-d", src.toString(), img.toString(), "16M")
        .ok();
    Path hash = dir.resolve("ext4.hash");
    ToolResult format =
        Tool.of("veritysetup").timeout(TIMEOUT).run("format", img.toString(), hash.toString()).ok();
    Matcher root = ROOT.matcher(format.out());
    assertThat(root.find()).as("veritysetup's root hash: %s", format).isTrue();

    try (TestBucket s3 = TestBucket.start(dir)) {
      String data = s3.put("fs/ext4.img", img);
      String tree = s3.put("fs/ext4.hash", hash);
      try (ServerProcess server =
          ServerProcess.start(
              dir.resolve("server"),
              s3.environment(),
              "open",
              data,
              "fs",
              tree,
              root.group(1),
              "--port",
              "0",
              "--s3-endpoint",
              s3.endpoint())) {
        String uri = server.line();
        assertThat(uri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/fs");
        try (Ext4Mount m = Ext4Mount.attach(dir.resolve("mnt"), uri)) {
          for (var f : files.entrySet()) {
            assertThat(Files.readAllBytes(m.root.resolve(f.getKey())))
                .as(f.getKey())
                .isEqualTo(f.getValue());
          }
          assertThat(m.root.resolve("lost+found")).isDirectory();
        }
        Map<String, Object> remote = server.remote("fs");
        assertThat((Long) remote.get("requests")).as("%s", remote).isPositive();
        assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
        assertThat(server.messages())
            .as("no corruption, no origin failure: %s", server.stderr())
            .noneMatch(l -> l.contains("corrupt") || l.contains("failed"));
        assertThat(server.terminate()).as(server.stderr()).isZero();
      }
    }
  }
}
