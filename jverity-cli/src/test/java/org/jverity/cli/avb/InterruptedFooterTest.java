package org.jverity.cli.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.cli.avb.AvbCommandKit.ok;
import static org.jverity.cli.avb.AvbCommandKit.pattern;
import static org.jverity.cli.avb.AvbCommandKit.sha256;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;

/**
 * A footer command stopped by SIGTERM (Ctrl-C's INT alike) while it writes leaves the image as it
 * was, its old footer included (avbtool leaves it cut back, its footer lost, so that a re-run takes
 * the tree it had appended for data).
 */
class InterruptedFooterTest {
  @TempDir Path dir;

  @Test
  void sigtermWhileBuildingRestoresTheImage() throws Exception {
    Path img = pattern(dir.resolve("system.img"), 48 << 20);
    long partition = 56 << 20;
    ok("add_hashtree_footer", "--image", img, "--partition_size", partition, "--salt", "00");
    String before = sha256(img);
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(
        List.of(
            "avb",
            "add_hashtree_footer",
            "--image",
            img.toString(),
            "--partition_size",
            Long.toString(partition),
            "--salt",
            "01",
            "--fec_num_roots",
            "24",
            "--threads",
            "1"));
    Path log = dir.resolve("child.log");
    Process p =
        Jverity.detailed(new ProcessBuilder(cmd))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean started = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!started && p.isAlive() && System.nanoTime() < deadline) {
      started = saved().findAny().isPresent();
      Thread.sleep(5);
    }
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = Files.readString(log);
    assertThat(saved().toList()).as(output).isEmpty();
    if (p.exitValue() == 0) { // it finished first: then it is the new image, whole
      assertThat(sha256(img)).isNotEqualTo(before);
      assertThat(ok("info_image", "--image", img).stdout()).contains("FEC num roots:         24");
    } else {
      assertThat(sha256(img)).as(output).isEqualTo(before);
    }
    assertThat(started).as("the edit began before the signal").isTrue();
  }

  private Stream<Path> saved() throws Exception {
    return Files.list(dir).filter(f -> f.getFileName().toString().endsWith(".avb-saved"));
  }
}
