package org.jverity.server.status;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Set;
import org.jverity.server.ServerException;

/**
 * Where running servers leave their status sockets, one {@code NAME.ctl} per export: {@code
 * --runtime-dir}, else {@code $JVERITY_RUNTIME_DIR}, else {@code $XDG_RUNTIME_DIR/jverity}, else
 * {@code /run/jverity} for root, else {@code $TMPDIR/jverity-USER}. Created private (0700) when a
 * server starts. Trusted only when it is ours, as ssh-agent and systemd check theirs: owned by this
 * process's user and writable by nobody else; otherwise another local user could put a status
 * socket there that answers for an export, or take one away. Stateless.
 */
public final class RuntimeDir {
  private RuntimeDir() {}

  /** Where the default comes from, for each command's --runtime-dir help: said here, once. */
  public static final String DEFAULTS =
      "$JVERITY_RUNTIME_DIR, $XDG_RUNTIME_DIR/jverity, /run/jverity for root, else"
          + " $TMPDIR/jverity-USER; it must be yours and writable by no one else";

  /** The directory to use, {@code given} when not null. */
  public static Path resolve(Path given) {
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
    String tmp = System.getenv("TMPDIR"); // the JVM's java.io.tmpdir is /tmp whatever TMPDIR says
    return Path.of(
        tmp != null && !tmp.isEmpty() ? tmp : System.getProperty("java.io.tmpdir"),
        "jverity-" + user);
  }

  /** Creates {@code dir} (mode 0700) when it does not exist yet; refuses one that is not ours. */
  public static Path create(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir.toAbsolutePath().getParent());
        Files.createDirectory(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // another server made it first (or someone else did: checked next)
      }
    }
    requireOurs(dir);
    return dir;
  }

  /**
   * Whether {@code dir} exists, refusing one that is not ours ({@link ServerException.Reason#IO},
   * as access denied): {@code status} and {@code close} believe no socket found there.
   */
  public static boolean existing(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return false;
    }
    requireOurs(dir);
    return true;
  }

  /**
   * Refuses {@code dir} unless it is a directory owned by this user and writable by no one else.
   */
  static void requireOurs(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw refused(dir, "not a directory");
    }
    var owner = Files.getOwner(dir);
    if (!owner.equals(CurrentUser.principal())) {
      throw refused(
          dir, "owned by " + owner.getName() + ", not " + CurrentUser.principal().getName());
    }
    var mode = Files.getPosixFilePermissions(dir);
    boolean group = mode.contains(PosixFilePermission.GROUP_WRITE);
    boolean others = mode.contains(PosixFilePermission.OTHERS_WRITE);
    if (group || others) {
      throw refused(
          dir,
          "mode "
              + octal(mode)
              + ", writable by "
              + (group && others ? "group and others" : group ? "group" : "others"));
    }
  }

  /** "0777", as chmod and ls -l's readers know it. */
  private static String octal(Set<PosixFilePermission> mode) {
    int bits = 0;
    for (PosixFilePermission p : mode) {
      bits |= 0400 >> p.ordinal(); // OWNER_READ first, OTHERS_EXECUTE last
    }
    return String.format("%04o", bits);
  }

  private static ServerException refused(Path dir, String what) {
    return new ServerException(
        ServerException.Reason.IO,
        "runtime directory "
            + dir
            + ": "
            + what
            + " (expected: a directory of your own that only you can write to, e.g. mode 0700)");
  }

  /**
   * The status socket of export {@code name}: bytes other than letters, digits, '.', '_' and '-'
   * are written %XX (so no name escapes the directory), and the default export "" is "%".
   */
  public static Path socket(Path dir, String name) {
    StringBuilder file = new StringBuilder();
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '_'
          || c == '-'
          || (c == '.' && !file.isEmpty())) {
        file.append(c);
      } else {
        file.append(String.format("%%%02X", b & 0xff));
      }
    }
    return dir.resolve((file.isEmpty() ? "%" : file) + ".ctl");
  }

  /**
   * The export name whose status socket is {@code file} ({@link #socket}'s inverse); null for
   * another file.
   */
  public static String name(Path file) {
    String f = file.getFileName().toString();
    if (!f.endsWith(".ctl")) {
      return null;
    }
    String n = f.substring(0, f.length() - ".ctl".length());
    if (n.equals("%")) {
      return "";
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < n.length(); i++) {
      char c = n.charAt(i);
      if (c != '%') {
        bytes.write(c);
      } else if (i + 2 < n.length()
          && HexFormat.isHexDigit(n.charAt(i + 1))
          && HexFormat.isHexDigit(n.charAt(i + 2))) {
        bytes.write(HexFormat.fromHexDigits(n, i + 1, i + 3));
        i += 2;
      } else {
        return null; // not a name socket() writes
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
