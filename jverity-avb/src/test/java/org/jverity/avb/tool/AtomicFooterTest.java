package org.jverity.avb.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Tool;
import org.jverity.tree.ProgressListener;

/**
 * The footer commands change an image in place, as avbtool does, but a failure after they started
 * writing leaves it byte for byte as it was, its old footer included (avbtool truncates it to its
 * original size, losing the footer).
 */
class AtomicFooterTest {
  @TempDir Path dir;

  private Path pattern(String name, int size) throws IOException {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) i;
    }
    return Files.write(dir.resolve(name), b);
  }

  private static VbmetaOptions signed() {
    return new VbmetaOptions(
        AvbAlgorithm.SHA256_RSA2048,
        AvbTestKeys.path("testkey_rsa2048.pem"),
        null,
        null,
        0,
        0,
        0,
        List.of(),
        List.of(),
        List.of("k:v"),
        List.of(),
        List.of(),
        null,
        List.of(),
        null,
        null);
  }

  /** A signed system partition's footer of {@code partitionSize}, sha256, salt 00. */
  private AddHashtreeFooter.Builder system(Path img, long partitionSize) {
    return AddHashtreeFooter.builder()
        .image(img)
        .partitionSize(partitionSize)
        .partitionName("system")
        .hashAlgorithm("sha256")
        .salt("00")
        .vbmeta(signed());
  }

  private AddHashtreeFooter hashtree(Path img, Path vbmetaOut) {
    return system(img, 2 << 20).outputVbmetaImage(vbmetaOut).build();
  }

  @Test
  void aFailureAfterTheTreeWasWrittenRestoresTheOldFooter() throws Exception {
    Path img = pattern("system.img", 1 << 20);
    hashtree(img, null).apply(1, ProgressListener.NONE);
    byte[] before = Files.readAllBytes(img);
    // the vbmeta is written last, into a directory that does not exist: everything before it ran
    Path nowhere = dir.resolve("missing/vbmeta.img");
    assertThatThrownBy(() -> hashtree(img, nowhere).apply(1, ProgressListener.NONE))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .containsExactly("system.img"); // the saved tail is gone too
  }

  @Test
  void aFailedFirstRunLeavesTheInputAsItWas() throws Exception {
    Path img = pattern("boot.img", 10_000);
    byte[] before = Files.readAllBytes(img);
    AddHashFooter add =
        AddHashFooter.builder()
            .image(img)
            .partitionSize(1 << 20)
            .partitionName("boot")
            .salt("00")
            .outputVbmetaImage(dir.resolve("no/such"))
            .vbmeta(signed())
            .build();
    assertThatThrownBy(add::apply).isInstanceOf(NoSuchFileException.class);
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  @Test
  void zeroHashtreeMarksTheTreeAndKeepsTheSize() throws Exception {
    Path img = pattern("z.img", 1 << 20);
    hashtree(img, null).apply(1, ProgressListener.NONE);
    new ZeroHashtree(img).apply();
    byte[] b = Files.readAllBytes(img);
    assertThat(new String(b, 1 << 20, 8, "US-ASCII")).isEqualTo("ZeRoHaSH");
    assertThat(b).hasSize(2 << 20);
  }

  /**
   * A partition's padding is a hole (avbtool's DONT_CARE), and zero_hashtree keeps it one: it saved
   * and put back the bytes past the tree through a copy that wrote the hole out (docs/avb.md's 4
   * GiB system partition: 8 GiB written, 75 s).
   */
  @Test
  void zeroHashtreeKeepsThePaddingAHole() throws Exception {
    Path img = pattern("sparse.img", 1 << 20);
    system(img, 1L << 30).build().apply(1, ProgressListener.NONE);
    long before = allocated(img);
    new ZeroHashtree(img).apply();
    assertThat(Files.size(img)).isEqualTo(1L << 30);
    assertThat(allocated(img)).as("bytes allocated, %d before", before).isLessThan(8L << 20);
    byte[] tail = new byte[64];
    try (var ch = java.nio.channels.FileChannel.open(img)) {
      ch.read(java.nio.ByteBuffer.wrap(tail), (1L << 30) - 64);
    }
    assertThat(new String(tail, 0, 4, "US-ASCII")).isEqualTo("AVBf"); // the footer, put back
  }

  /** The bytes the file system holds for {@code p} (stat's %b blocks of 512). */
  private static long allocated(Path p) {
    return Long.parseLong(Tool.of("stat").check("-c", "%b", p.toString()).out().strip()) * 512;
  }

  @Test
  void eraseFooterKeepsTheHashtreeWhenAsked() throws Exception {
    Path img = pattern("k.img", 1 << 20);
    AddHashtreeFooter.Added added = hashtree(img, null).apply(1, ProgressListener.NONE);
    long end = new EraseFooter(img, true).apply();
    assertThat(end)
        .isEqualTo(added.descriptor().fecOffset() + added.descriptor().fecSize())
        .isEqualTo(Files.size(img));
    assertThatThrownBy(() -> new EraseFooter(img, false).apply())
        .hasMessageContaining("no AVB footer");
  }
}
