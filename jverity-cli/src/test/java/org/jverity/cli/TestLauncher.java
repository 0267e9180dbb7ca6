package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A {@code jverity} command for tests that run shell lines as a user types them (the README's, the
 * man pages' examples): the worktree launcher's JVM options (bin/lib.sh: the JIT, a server's heap,
 * a one-shot command's collector, the native loops) over this build's classes, instead of the jar
 * the test phase has not made yet.
 */
public final class TestLauncher {
  private TestLauncher() {}

  /** Writes {@code bin/jverity} in {@code dir} and returns it. */
  public static Path write(Path dir) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path root = Path.of("..").toAbsolutePath().normalize();
    String nativeLibrary = System.getProperty("jverity.native.library", "");
    Path launcher = bin.resolve("jverity");
    Files.writeString(
        launcher,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "set -euo pipefail",
            ". '" + root.resolve("bin/lib.sh") + "'",
            "NATIVE_OPTS=() JVERITY_JIT_OPTS=()",
            "if [ -f '" + nativeLibrary + "' ]; then",
            "  NATIVE_OPTS=(-Djverity.native.library='" + nativeLibrary + "')",
            "  jverity_jit_opts \"$@\"",
            "fi",
            "jverity_server_java_opts \"$@\"",
            "jverity_oneshot_opts \"$@\"",
            "exec '"
                + ServerProcess.javaCommand().get(0)
                + "' ${NATIVE_OPTS[@]+\"${NATIVE_OPTS[@]}\"}"
                + " ${JVERITY_JIT_OPTS[@]+\"${JVERITY_JIT_OPTS[@]}\"} --enable-native-access=ALL-UNNAMED"
                + " ${JVERITY_SERVER_OPTS[@]+\"${JVERITY_SERVER_OPTS[@]}\"}"
                + " ${JVERITY_ONESHOT_OPTS[@]+\"${JVERITY_ONESHOT_OPTS[@]}\"}"
                + " -cp '"
                + System.getProperty("java.class.path")
                + "' org.jverity.cli.Main \"$@\"",
            ""));
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    return launcher;
  }
}
