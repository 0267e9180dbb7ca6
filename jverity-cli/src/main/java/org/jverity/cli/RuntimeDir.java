package org.jverity.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where running servers leave their status sockets, one {@code NAME.ctl} per export:
 * {@code --runtime-dir}, else {@code $JVERITY_RUNTIME_DIR}, else {@code $XDG_RUNTIME_DIR/jverity},
 * else {@code /run/jverity} for root, else {@code $TMPDIR/jverity-USER}. Created private (0700)
 * when a server starts. Stateless.
 */
final class RuntimeDir {
  private RuntimeDir() {}

  /** The directory to use, {@code given} when not null. */
  static Path resolve(Path given) {
    if (given != null) {
      return given;
    }
    String env = System.getenv("JVERITY_RUNTIME_DIR");
    if (env != null && !env.isEmpty()) {
      return Path.of(env);
    }
    String xdg = System.getenv("XDG_RUNTIME_DIR");
    if (xdg != null && !xdg.isEmpty()) {
      return Path.of(xdg, "jverity");
    }
    String user = System.getProperty("user.name", "");
    if (user.equals("root")) {
      return Path.of("/run/jverity");
    }
    return Path.of(System.getProperty("java.io.tmpdir"), "jverity-" + user);
  }

  /** Creates {@code dir} (mode 0700) when it does not exist yet. */
  static Path create(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir.toAbsolutePath().getParent());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // another server made it first
      }
    }
    return dir;
  }

  /**
   * The status socket of export {@code name}: bytes other than letters, digits, '.', '_' and '-'
   * are written %XX (so no name escapes the directory), and the default export "" is "%".
   */
  static Path socket(Path dir, String name) {
    StringBuilder file = new StringBuilder();
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
          || (c == '.' && !file.isEmpty())) {
        file.append(c);
      } else {
        file.append(String.format("%%%02X", b & 0xff));
      }
    }
    return dir.resolve((file.isEmpty() ? "%" : file) + ".ctl");
  }
}
