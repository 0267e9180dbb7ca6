package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every front end opens a dm-verity image through the core's one opener, {@code VerityImage}
 * (devices through a DeviceSource, the trusted root resolved and checked, every device owned):
 * outside jverity-core no main source makes a {@code VerifiedReader} or a {@code
 * VerificationScheduler} of its own (DESIGN-REVIEW §1: the demo's and the read bench's did).
 */
class OneOpenerTest {
  private static final List<String> WIRING =
      List.of("VerifiedReader.open(", "new VerificationScheduler(");

  @Test
  void noFrontEndWiresAVerifiedReaderItself() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent(); // surefire runs in the module's folder
    List<Path> modules;
    try (Stream<Path> s = Files.list(root)) {
      modules =
          s.filter(m -> m.getFileName().toString().startsWith("jverity-"))
              .filter(m -> !m.getFileName().toString().equals("jverity-core"))
              .filter(m -> Files.isDirectory(m.resolve("src/main/java")))
              .toList();
    }
    assertThat(modules).as("the modules beside jverity-cli").hasSizeGreaterThan(5);
    List<String> found = new ArrayList<>();
    for (Path m : modules) {
      try (Stream<Path> files = Files.walk(m.resolve("src/main/java"))) {
        for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String text = Files.readString(f);
          for (String w : WIRING) {
            if (text.contains(w)) {
              found.add(root.relativize(f) + ": " + w);
            }
          }
        }
      }
    }
    assertThat(found).as("open through VerityImage instead").isEmpty();
  }
}
