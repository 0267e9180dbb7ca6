package org.jverity.cli.serve;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.jverity.cli.command.CliException;
import org.jverity.testkit.ParserContract;

/**
 * The serve config file (nbd-server's INI dialect, then the keys of [generic] and of each export):
 * a config, or one {@link CliException} naming the file and line. Files it names are looked up in
 * an empty directory, so a config that needs one is refused for its absence, not its syntax.
 */
class ServeConfigFuzzTest {
  private static Path base;

  @BeforeAll
  static void emptyBase() throws IOException {
    base = Files.createTempDirectory("serve-config-fuzz");
  }

  @AfterAll
  static void removeBase() throws IOException {
    Files.delete(base);
  }

  @FuzzTest(maxDuration = "2m")
  void readsOrRefuses(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    ParserContract.holds(
        bytes.length,
        () -> ServeConfig.read(IniFile.parse("fuzz.conf", text), base, null),
        CliException.class);
  }
}
