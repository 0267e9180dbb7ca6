package org.jverity.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Ext4Mount;
import org.jverity.testkit.Tool;

/**
 * ext4 in an AVB partition: {@code mkfs.ext4 -d} makes a 16 MiB file system of a few files, the
 * test appends the hashtree, FEC, signed vbmeta and footer ({@link AvbTestImage}), {@code jverity
 * open IMG NAME --avb-key KEY} serves it, and the kernel mounts it through nbdfuse, {@code losetup
 * -r} and {@code mount -o ro}: every file reads back as written, so the export ends where ext4 does
 * (at image_size, not at the footer). Needs root, /dev/fuse and loop devices (skipped, saying so,
 * without the devices).
 */
class AvbExt4MountTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @BeforeAll
  static void devicesArePresent() {
    for (String device : List.of("/dev/fuse", "/dev/loop-control")) {
      if (!Files.exists(Path.of(device))) {
        System.out.println("AvbExt4MountTest skipped: " + device + " is absent");
      }
      Assumptions.assumeTrue(Files.exists(Path.of(device)), device + " is absent on this machine");
    }
    var id = Tool.of("id").timeout(TIMEOUT).run("-u").ok();
    if (!id.out().strip().equals("0")) {
      fail("AvbExt4MountTest needs root (losetup, mount), runs as uid %s", id.out().strip());
    }
  }

  @Test
  void ext4InASignedAvbPartitionMountsThroughNbdfuse() throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/etc"));
    byte[] big = new byte[1_500_000];
    new SplittableRandom(19).nextBytes(big);
    Files.write(src.resolve("build.prop"), "ro.build.id=AVB19\n".repeat(100).getBytes(UTF_8));
    Files.write(dir.resolve("src/app.bin"), big);
    Path img = dir.resolve("system.img");
    Tool.of("mkfs.ext4")
        .timeout(TIMEOUT)
        .run("-q", "-b", "4096", "-d", dir.resolve("src").toString(), img.toString(), "16M")
        .ok();
    AvbTestImage image = AvbTestImage.signed(img);
    assertThat(image.imageSize()).isEqualTo(16 << 20);
    Path key = AvbTestKeys.copy(AvbTestImage.KEY, dir);
    try (HostedServer server =
        HostedServer.start(
            dir, "open", img.toString(), "system", "--avb-key", key.toString(), "--port", "0")) {
      String uri = server.line();
      try (Ext4Mount m = Ext4Mount.attach(dir.resolve("mnt"), uri)) {
        assertThat(Files.readString(m.root.resolve("etc/build.prop")))
            .isEqualTo("ro.build.id=AVB19\n".repeat(100));
        assertThat(Files.readAllBytes(m.root.resolve("app.bin"))).isEqualTo(big);
        assertThat(m.root.resolve("lost+found")).isDirectory();
      }
      assertThat(server.stderr())
          .as("no corruption: %s", server.stderr())
          .doesNotContain("corrupt");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }
}
