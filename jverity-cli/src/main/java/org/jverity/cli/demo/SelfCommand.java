package org.jverity.cli.demo;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How to run this jverity again as a process, for {@code demo}: the command it times (a whole
 * process, as a user runs it) and prints (so the user can paste it). From the source tree, {@code
 * bin/jverity} next to the jar's {@code jverity-cli/target/}; else {@code java -jar} the jar; else
 * (classes on a class path, as under the tests) {@code java -cp ... org.jverity.cli.Main}.
 */
final class SelfCommand {
  /**
   * The entry point, by name: the demo sits below the command line's root package and must not
   * depend on it (DemoCommandTest runs this way, from classes, so a stale name fails there).
   */
  static final String MAIN_CLASS = "org.jverity.cli.Main";

  private static final Pattern PLAIN =
      Pattern.compile("[A-Za-z0-9_./:=,+@%-]+"); // needs no quotes in sh

  private SelfCommand() {}

  /** The words that start jverity, before its command and arguments. */
  static List<String> launcher() {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path code = codeLocation();
    if (code != null && Files.isRegularFile(code) && code.toString().endsWith(".jar")) {
      Path target =
          code.toAbsolutePath().getParent(); // <root>/jverity-cli/target in the source tree
      if (target.endsWith(Path.of("jverity-cli", "target"))) {
        Path script = target.getParent().getParent().resolve("bin").resolve("jverity");
        if (Files.isExecutable(script)) {
          return List.of(script.toString());
        }
      }
      return List.of(java.toString(), "-jar", code.toString());
    }
    return List.of(
        java.toString(),
        "--enable-native-access=ALL-UNNAMED",
        "-cp",
        System.getProperty("java.class.path"),
        MAIN_CLASS);
  }

  /** {@link #launcher()} followed by {@code args}. */
  static List<String> command(String... args) {
    List<String> c = new ArrayList<>(launcher());
    c.addAll(List.of(args));
    return c;
  }

  /** The command as a line to paste into a POSIX shell. */
  static String shellLine(List<String> words) {
    return words.stream().map(SelfCommand::quote).collect(Collectors.joining(" "));
  }

  static String quote(String word) {
    return PLAIN.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  private static Path codeLocation() {
    try {
      var source = SelfCommand.class.getProtectionDomain().getCodeSource();
      return source == null ? null : Path.of(source.getLocation().toURI());
    } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
      return null;
    }
  }
}
