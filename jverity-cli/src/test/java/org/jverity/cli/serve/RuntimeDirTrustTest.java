package org.jverity.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.BadInputTest;
import org.jverity.cli.Clients;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.server.status.StatusSocket;
import org.jverity.testkit.Tool;

/**
 * The runtime directory and its status sockets are trusted only when they are ours: a directory
 * writable by others or owned by another user is refused, and so is a status socket served by a
 * process of another user (run as {@code nobody}, uid 65534, through setpriv); a server takes
 * {@code close} only from its own user. Needs root, to act as another user.
 */
class RuntimeDirTrustTest {
  private static final int NOBODY = 65534;

  @TempDir Path dir;
  private Path shared; // a directory nobody can reach (the test's own is root's, mode 0700)
  private Process listener;

  @BeforeAll
  static void root() {
    if (!"root".equals(System.getProperty("user.name"))) {
      fail(
          "these tests act as another user (uid " + NOBODY + "): run them as root (bin/test does)");
    }
    if (!Files.isExecutable(Path.of("/usr/bin/setpriv"))
        || !Files.isExecutable(Path.of("/usr/bin/python3"))) {
      fail(
          "setpriv (util-linux) and /usr/bin/python3 are needed to run a listener as another user");
    }
  }

  @AfterEach
  void cleanUp() throws IOException {
    if (listener != null) {
      listener.destroyForcibly();
    }
    if (shared != null) {
      try (Stream<Path> all = Files.walk(shared)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void assertRefused(ToolRun r, String... fragments) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.IO_ERROR);
    BadInputTest.assertOneErrorLine(r);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderr()).contains(fragments);
  }

  @Test
  void aRuntimeDirWritableByOthersIsRefusedByEveryCommand() throws Exception {
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
    String expected =
        "jverity: runtime directory " + run + ": mode 0777, writable by group and others";
    assertRefused(Jverity.run("status", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("status", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("close", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("reload", "disk", "--runtime-dir", run.toString()), expected);
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    assertRefused(
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--runtime-dir",
            run.toString()),
        expected);
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx---rwx"));
    assertRefused(
        Jverity.run("status", "--runtime-dir", run.toString()), "mode 0707, writable by others");
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Jverity.run("status", "--runtime-dir", run.toString()).exitCode())
        .as("0755 is fine")
        .isZero();
  }

  @Test
  void aRuntimeDirOwnedByAnotherUserIsRefused() throws Exception {
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
    Files.setAttribute(run, "unix:uid", NOBODY);
    String expected = "jverity: runtime directory " + run + ": owned by nobody, not root";
    assertRefused(Jverity.run("status", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("close", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("reload", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("status", "--runtime-dir", run.toString()), expected);
  }

  /**
   * Runs a status socket as nobody in {@code shared}, answering every request with a forged report.
   */
  private Path foreignStatusSocket() throws Exception {
    shared = Files.createTempDirectory(Path.of("/tmp"), "jverity-peer");
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setAttribute(shared, "unix:uid", NOBODY);
    Path script =
        Files.writeString(
            shared.resolve("listen.py"),
            """
        import os, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.bind(sys.argv[1])
        s.listen()
        open(sys.argv[1] + ".ready", "w").close()
        while True:
            c, _ = s.accept()
            try:
                c.recv(64)
                c.sendall(b"disk is active.\\n  status:        verified\\n  uri:           nbd://evil/\\n")
            except OSError:
                pass  # the client left without asking
            c.close()
        """);
    Path socket = shared.resolve("disk.ctl");
    listener =
        new ProcessBuilder(
                "/usr/bin/setpriv",
                "--reuid=" + NOBODY,
                "--regid=" + NOBODY,
                "--clear-groups",
                "/usr/bin/python3",
                script.toString(),
                socket.toString())
            .redirectErrorStream(true)
            .start();
    Path ready = Path.of(socket + ".ready");
    for (int i = 0; i < 200 && !Files.exists(ready); i++) {
      Thread.sleep(50);
    }
    assertThat(ready)
        .as(
            "the listener runs as nobody: %s",
            listener.isAlive()
                ? ""
                : new String(listener.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .exists();
    return socket;
  }

  @Test
  void aStatusSocketServedByAnotherUserIsNotBelieved() throws Exception {
    Path socket = foreignStatusSocket();
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
    Files.move(socket, run.resolve("disk.ctl")); // as if another user had put it there
    String expected =
        "status socket " + run.resolve("disk.ctl") + ": served by user nobody, not root";
    assertRefused(Jverity.run("status", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("close", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("reload", "disk", "--runtime-dir", run.toString()), expected);
    assertRefused(Jverity.run("status", "--runtime-dir", run.toString()), expected);
    assertThat(listener.isAlive()).isTrue();
  }

  @Test
  void aServerTakesCloseOnlyFromItsOwnUser() throws Exception {
    Tool.of("nbdinfo").require();
    FormattedImage image = FormattedImage.create(dir, "disk", 16);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0")) {
      String uri = server.line();
      // Another user reaching the status socket (a hard link where it can, writable as sockets must
      // be).
      shared = Files.createTempDirectory(Path.of("/tmp"), "jverity-peer");
      Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path link = Files.createLink(shared.resolve("disk.ctl"), dir.resolve("run/disk.ctl"));
      Files.setPosixFilePermissions(link, PosixFilePermissions.fromString("rwxrwxrwx"));
      assertThat(askAsNobody(link, "close"))
          .isEqualTo("error: refused: only the user this server runs as may close its exports\n");
      assertThat(askAsNobody(link, "reload"))
          .isEqualTo("error: refused: only the user this server runs as may reload its config\n");
      assertThat(Clients.run("nbdinfo", "--size", uri).stdout().strip())
          .as("still served")
          .isEqualTo(Integer.toString(16 * 4096));
      // Its own user may.
      try (SocketChannel c =
          SocketChannel.open(UnixDomainSocketAddress.of(dir.resolve("run/disk.ctl")))) {
        c.write(ByteBuffer.wrap(StatusSocket.CLOSE.getBytes(StandardCharsets.UTF_8)));
        ByteBuffer in = ByteBuffer.allocate(64);
        c.read(in);
        assertThat(new String(in.array(), 0, in.position(), StandardCharsets.UTF_8))
            .startsWith("closing\n");
      }
      assertThat(server.waitFor()).isZero();
    }
  }

  /** Sends {@code request} to the status socket at {@code socket} as user nobody; the answer. */
  private static String askAsNobody(Path socket, String request) throws Exception {
    Process other =
        new ProcessBuilder(
                "/usr/bin/setpriv",
                "--reuid=" + NOBODY,
                "--regid=" + NOBODY,
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall(sys.argv[2].encode() + b"\\n")
            s.shutdown(socket.SHUT_WR)
            print(s.makefile().read(), end="")
            """,
                socket.toString(),
                request)
            .redirectErrorStream(true)
            .start();
    try {
      String answer = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
      return answer;
    } finally {
      other.destroyForcibly();
    }
  }
}
