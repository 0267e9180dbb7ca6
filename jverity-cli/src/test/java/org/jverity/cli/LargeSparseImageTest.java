package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory stays bounded whatever the image size: a 64 GiB sparse image formats and verifies in a JVM
 * limited to a 256 MiB heap (the tree alone is 516 MiB), and reads back verified, end to end, in a
 * 128 MiB heap (the default 64 MiB hash-block cache plus a small fixed overhead).
 */
class LargeSparseImageTest {
  @TempDir Path dir;

  private static Process jverity(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                args[0].equals("read") ? "-Xmx128m" : "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
    cmd.addAll(List.of(args));
    return Jverity.detailed(new ProcessBuilder(cmd)).redirectErrorStream(true).start();
  }

  private static String finish(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void formatsAndVerifiesA64GiBSparseImageIn256MiBOfHeap() throws Exception {
    Path data = dir.resolve("sparse.img");
    Path hash = dir.resolve("sparse.hash");
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(64L << 30);
    }
    String out =
        finish(jverity("format", data.toString(), hash.toString(), "--salt", "-", "--json"));
    assertThat(out).contains("\"dataBlocks\": 16777216", "\"hashBlocks\": 132105");
    String root = out.replaceAll("(?s).*\"rootHash\": \"([0-9a-f]+)\".*", "$1");
    assertThat(Files.size(hash)).isEqualTo((1 + 132105L) * 4096);
    finish(jverity("verify", data.toString(), hash.toString(), root));
    // Verified reads of all 64 GiB hold the 64 MiB hash-block cache plus a small fixed overhead.
    finish(jverity("read", data.toString(), hash.toString(), root, "--output", "/dev/null"));
  }
}
