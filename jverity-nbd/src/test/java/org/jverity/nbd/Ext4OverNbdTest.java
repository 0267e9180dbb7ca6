package org.jverity.nbd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Ext4Mount;
import org.jverity.testkit.Tool;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.ReaderOptions;

/**
 * A real kernel filesystem through the server: an ext4 image built with {@code mkfs.ext4 -d} from
 * 20 files, its hash tree formatted, served, and attached the way a machine without the nbd kernel
 * module does it: {@code nbdfuse} exposes the export as a file, {@code losetup -r} makes it a block
 * device, {@code mount -o ro} mounts it. Every file must read back identical; after one data block
 * of one file is corrupted on disk (the tree still holds its good digest), reading that file fails
 * with an I/O error, the others still read identical, and the server goes on.
 *
 * <p>Needs root, {@code /dev/fuse} and loop devices; without the devices it is skipped with the
 * reason printed, anything else missing fails it.
 */
class Ext4OverNbdTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String BAD = "big.bin"; // the file whose block gets corrupted

  @TempDir Path dir;

  @BeforeAll
  static void devicesArePresent() {
    for (String device : List.of("/dev/fuse", "/dev/loop-control")) {
      if (!Files.exists(Path.of(device))) {
        System.out.println("Ext4OverNbdTest skipped: " + device + " is absent on this machine");
      }
      Assumptions.assumeTrue(Files.exists(Path.of(device)), device + " is absent on this machine");
    }
    var id = Tool.of("id").timeout(TIMEOUT).run("-u").ok();
    if (!id.out().strip().equals("0")) {
      fail("Ext4OverNbdTest needs root (losetup, mount), and runs as uid %s", id.out().strip());
    }
  }

  /** 20 files of varied sizes (0 B to 1.5 MiB, one in a subdirectory) with seeded contents. */
  private static Map<String, byte[]> files() {
    int[] sizes = {
      0, 1, 511, 4095, 4096, 4097, 8192, 12_345, 65_536, 65_537, 100_000, 131_072, 200_003, 262_144,
      300_001, 400_000, 524_288, 700_000
    };
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < sizes.length; i++) {
      files.put("f%02d.bin".formatted(i), random(i, sizes[i]));
    }
    files.put("sub/nested.txt", "a file in a directory\n".repeat(1000).getBytes(UTF_8));
    files.put(
        BAD, random(99, 1_536 * 1024)); // the bad block sits in its middle, far from other files
    return files;
  }

  private static byte[] random(long seed, int size) {
    byte[] b = new byte[size];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < size; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  @Test
  @DisplayName(
      "ext4 via nbdfuse + losetup -r + mount -o ro: every file identical; a corrupted block fails only its file")
  void ext4ThroughNbdfuseAndLoop() throws Exception {
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
    long badBlock = middleBlockOf(img, BAD);

    // 1. The image as built: every file reads back identical.
    Path clean = Files.createDirectories(dir.resolve("clean"));
    Path cleanData = Files.copy(img, clean.resolve("data.img"));
    try (ServedImage image =
            ServedImage.format(
                clean, cleanData, ReaderOptions.DEFAULTS, ServerLimits.DEFAULTS, NbdEvents.NONE);
        Ext4Mount m = Ext4Mount.attach(dir.resolve("m1"), image.unixUri())) {
      for (var f : files.entrySet()) {
        assertThat(Files.readAllBytes(m.root.resolve(f.getKey())))
            .as(f.getKey())
            .isEqualTo(f.getValue());
      }
      assertThat(m.root.resolve("lost+found")).isDirectory();
    }

    // 2. One byte of one data block of BAD flipped after formatting: only BAD fails, with EIO.
    Path bad = Files.createDirectories(dir.resolve("bad"));
    Path badData = Files.copy(img, bad.resolve("data.img"), StandardCopyOption.REPLACE_EXISTING);
    Queue<Long> corrupted = new ConcurrentLinkedQueue<>();
    NbdEvents events =
        new NbdEvents() {
          @Override
          public void corruption(String export, CorruptBlockException e) {
            corrupted.add(e.dataBlock());
          }
        };
    try (ServedImage image =
            ServedImage.format(
                bad,
                badData,
                ReaderOptions.DEFAULTS,
                ServerLimits.DEFAULTS,
                events,
                data -> flipByte(data, badBlock * 4096 + 1000));
        Ext4Mount m = Ext4Mount.attach(dir.resolve("m2"), image.unixUri())) {
      Path badFile = m.root.resolve(BAD);
      assertThatThrownBy(() -> Files.readAllBytes(badFile))
          .as("reading %s (block %d corrupted)", BAD, badBlock)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("Input/output error");
      assertThatThrownBy(() -> Files.readAllBytes(badFile))
          .as("again: nothing cached the bad block")
          .isInstanceOf(IOException.class);
      assertThat(corrupted)
          .as("the server saw data block %d fail", badBlock)
          .contains(badBlock)
          .containsOnly(badBlock);
      try (RandomAccessFile f = new RandomAccessFile(badFile.toFile(), "r")) {
        byte[] head = new byte[65536];
        f.readFully(head);
        assertThat(head)
            .as("the verified start of %s", BAD)
            .isEqualTo(Arrays.copyOf(files.get(BAD), 65536));
      }
      for (var f : files.entrySet()) {
        if (!f.getKey().equals(BAD)) {
          assertThat(Files.readAllBytes(m.root.resolve(f.getKey())))
              .as(f.getKey())
              .isEqualTo(f.getValue());
        }
      }
      var info = Tool.of("nbdinfo").timeout(TIMEOUT).run("--size", image.tcpUri()).ok();
      assertThat(info.out().strip())
          .as("the server is still up")
          .isEqualTo(String.valueOf(Files.size(img)));
    }
  }

  /** The filesystem block in the middle of {@code name}, by {@code debugfs -R 'blocks /name'}. */
  private static long middleBlockOf(Path img, String name) {
    var r = Tool.of("debugfs").timeout(TIMEOUT).run("-R", "blocks /" + name, img.toString()).ok();
    List<Long> blocks = new ArrayList<>();
    for (String s : r.out().strip().split("\\s+")) {
      blocks.add(Long.parseLong(s));
    }
    assertThat(blocks).as(r.toString()).hasSize(1_536 / 4);
    return blocks.get(blocks.size() / 2);
  }

  private static void flipByte(Path data, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x40);
    }
  }
}
