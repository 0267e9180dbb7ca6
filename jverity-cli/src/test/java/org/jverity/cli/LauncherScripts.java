package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The launchers' shell functions (bin/lib.sh, bin/jvm-options.sh) run as the launchers run them.
 */
final class LauncherScripts {
  private LauncherScripts() {}

  /**
   * Runs {@code line} in bash after sourcing bin/lib.sh (which sources bin/jvm-options.sh), with
   * {@code args} as "$@" and no $JVERITY_JAVA_OPTS; returns its non-empty output lines.
   */
  static List<String> run(String line, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                "-c",
                "unset JVERITY_JAVA_OPTS; . \"$0\" && " + line,
                projectRoot().resolve("bin/lib.sh").toString()));
    cmd.addAll(List.of(args));
    ToolRun r = Clients.run(cmd.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r.stdout().lines().filter(l -> !l.isEmpty()).toList();
  }

  static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bin/lib.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("no bin/lib.sh above " + Path.of("").toAbsolutePath());
  }
}
