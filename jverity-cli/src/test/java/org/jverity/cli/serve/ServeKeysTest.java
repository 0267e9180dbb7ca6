package org.jverity.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.command.CliException;
import org.jverity.cli.syntax.Syntax;

/**
 * {@code serve}'s config says what {@code open}'s options say: every long option of {@code open} is
 * a key of a serve config section (its name without the dashes), so an option added to {@code open}
 * and forgotten in the config fails here, and {@code serve --help} names it.
 */
class ServeKeysTest {
  /**
   * {@code open}'s options that have no place in a config file: a command-line output format, one
   * connection on stdin (a client starts that process, no config), and the service options, which
   * {@code serve} takes on its own command line.
   */
  static final Set<String> NOT_KEYS =
      Set.of("json", "stdin", "pid-file", "run", "exit-with-parent");

  /** Options whose key is spelt otherwise: {@code --hash} would read as the hash device. */
  static final Map<String, String> ALIASES = Syntax.KEY_ALIASES;

  @TempDir Path dir;
  private FormattedImage image;

  @BeforeEach
  void image() throws Exception {
    image = FormattedImage.create(dir, "disk", 8);
  }

  /** The keys {@code open}'s options give, in its order. */
  static List<String> keysOfOpen() {
    List<String> keys = new ArrayList<>();
    for (Syntax.Option<OpenCommand> o : OpenCommand.SYNTAX.options()) {
      String name = o.name();
      if (!name.startsWith("--")) {
        continue;
      }
      String key = name.substring(2);
      if (!NOT_KEYS.contains(key)) {
        keys.add(ALIASES.getOrDefault(key, key));
      }
    }
    return keys;
  }

  @Test
  void everyLongOptionOfOpenIsAKeyOfAServeSection() throws Exception {
    List<String> keys = keysOfOpen();
    assertThat(keys)
        .contains(
            "hash-algorithm", "tls", "fec-roots", "root-hash-signature", "max-in-flight", "uuid");
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      if (!accepted(key)) {
        missing.add(key);
      }
    }
    assertThat(missing).as("open's options that are no serve config key").isEmpty();
  }

  @Test
  void theExclusionsAreOptionsOfOpen() {
    List<String> names =
        OpenCommand.SYNTAX.options().stream().map(o -> o.name().substring(2)).toList();
    assertThat(names).containsAll(NOT_KEYS).containsAll(ALIASES.keySet());
  }

  @Test
  void serveHelpListsEveryKeyOfOpen() {
    String help = ServeCommand.SYNTAX.summary();
    for (String key : keysOfOpen()) {
      assertThat(help).as("serve's help naming %s", key).containsPattern("[ ,]" + key + "[,; ]");
    }
  }

  /** Whether a section takes {@code key}: its value may be refused, but not the key itself. */
  private boolean accepted(String key) throws Exception {
    String line = key + " = x\n";
    String export = "[disk]\ndata = disk.img\nhash = disk.hash\nroot-hash = " + image.root() + "\n";
    return !unknown(key, "[generic]\n" + line + export) || !unknown(key, export + line);
  }

  private boolean unknown(String key, String text) throws Exception {
    Path conf = Files.writeString(dir.resolve("serve.conf"), text);
    try {
      ServeConfig.read(IniFile.parse(conf.toString(), text), dir, null);
      return false;
    } catch (CliException e) {
      return e.getMessage().contains(key + ": unknown key");
    }
  }
}
