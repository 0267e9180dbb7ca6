package org.jverity.cli.ddi;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.HostedServer;
import org.jverity.testkit.Ext4Mount;
import org.jverity.testkit.Tool;

/**
 * A DDI's root partition mounted by the kernel through jverity's NBD server: {@code mkfs.ext4 -d}
 * makes a file system of a few known files, {@code jverity ddi build} (and systemd-repart 252)
 * makes a signed DDI of it, {@code jverity open IMG.raw NAME --cert-dir DIR} serves the partition
 * verified, and nbdfuse, {@code losetup -r} and {@code mount -o ro} mount it: every file reads back
 * as written and the server saw no corruption. Needs root, /dev/fuse and loop devices (skipped,
 * saying so, without the devices, as {@code AvbExt4MountTest}).
 */
class DdiExt4MountTest {
  private static final String MOTD = "jverity DDI\n".repeat(300);

  @TempDir Path dir;
  private DdiImages images;
  private byte[] big;
  private Path fs;

  @BeforeAll
  static void devicesArePresent() {
    for (String device : List.of("/dev/fuse", "/dev/loop-control")) {
      if (!Files.exists(Path.of(device))) {
        System.out.println("DdiExt4MountTest skipped: " + device + " is absent");
      }
      Assumptions.assumeTrue(Files.exists(Path.of(device)), device + " is absent on this machine");
    }
    var id = Tool.of("id").run("-u").ok();
    if (!id.out().strip().equals("0")) {
      fail("DdiExt4MountTest needs root (losetup, mount), runs as uid %s", id.out().strip());
    }
  }

  @BeforeEach
  void fileSystem() throws Exception {
    images = new DdiImages(dir);
    Path src = Files.createDirectories(dir.resolve("src/etc"));
    Files.writeString(src.resolve("motd"), MOTD);
    Files.createDirectories(dir.resolve("src/usr/lib"));
    big = new byte[2_000_000];
    new SplittableRandom(32).nextBytes(big);
    Files.write(dir.resolve("src/usr/lib/app.bin"), big);
    Files.write(dir.resolve("src/empty"), new byte[0]);
    fs = images.ext4(dir.resolve("src"), "rootfs.ext4");
  }

  /** Serves {@code image}'s root partition, mounts it and reads every file back. */
  private void mountsAndReadsBack(Path image) throws Exception {
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            image.toString(),
            "root",
            "--cert-dir",
            images.certDir().toString(),
            "--arch",
            "x86-64",
            "--port",
            "0")) {
      String uri = server.line();
      try (Ext4Mount m = Ext4Mount.attach(dir.resolve("mnt"), uri)) {
        assertThat(Files.readString(m.root.resolve("etc/motd"), UTF_8)).isEqualTo(MOTD);
        assertThat(Files.readAllBytes(m.root.resolve("usr/lib/app.bin"))).isEqualTo(big);
        assertThat(m.root.resolve("empty")).isEmptyFile();
        assertThat(m.root.resolve("lost+found")).isDirectory();
        try (var list = Files.list(m.root)) {
          assertThat(list.map(p -> p.getFileName().toString()))
              .containsExactlyInAnyOrder("etc", "usr", "empty", "lost+found");
        }
      }
      assertThat(server.stderr())
          .as("no corruption: %s", server.stderr())
          .doesNotContain("corrupt");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void ext4InADdiJverityBuiltMountsThroughNbdfuse() throws Exception {
    mountsAndReadsBack(images.signed(fs, "image.raw"));
  }

  @Test
  void ext4InADdiRepartBuiltMountsThroughNbdfuse() throws Exception {
    mountsAndReadsBack(images.repartSigned(fs, "repart.raw"));
  }
}
