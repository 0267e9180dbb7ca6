package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;
import org.jverity.text.Json;

/**
 * Running as a service, with real processes: {@code close NAME} through the status socket, {@code
 * status} listing every export, {@code --pid-file}, {@code --run} (nbdkit's captive mode, with
 * libnbd's clients as the command) and {@code --exit-with-parent}.
 */
class ServiceLifecycleTest {
  @TempDir Path dir;

  private Process client; // the nbdsh a test holds a connection with; killed after it, if left

  @AfterEach
  void stopClient() throws InterruptedException {
    if (client != null) {
      client.destroyForcibly();
      client.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @BeforeAll
  static void clients() {
    Tool.of("nbdcopy").require();
    Tool.of("nbdinfo").require();
    Tool.of("nbdsh").require();
  }

  private String runtime() {
    return dir.resolve("run").toString();
  }

  private Path config(FormattedImage one, FormattedImage two) throws Exception {
    return Files.writeString(
        dir.resolve("serve.conf"),
        """
        [generic]
        port = 0

        [one]
        data = one.img
        hash = one.hash
        root-hash = %s

        [two]
        data = two.img
        hash = two.hash
        root-hash = %s
        """
            .formatted(one.root(), two.root()));
  }

  /** The files the process {@code pid} has open or mapped. */
  private static List<String> openFiles(long pid) throws Exception {
    List<String> files = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
      int slash = line.indexOf('/');
      if (slash > 0) {
        files.add(line.substring(slash));
      }
    }
    try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          files.add(Files.readSymbolicLink(fd).toString());
        } catch (java.io.IOException gone) {
          // closed while listed
        }
      }
    }
    return files;
  }

  @Test
  void closeWithdrawsOneExportDisconnectingItsClientsAndTheLastStopsTheServer() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 64);
    FormattedImage two = FormattedImage.create(dir, "two", 32);
    try (ServerProcess server = ServerProcess.start(dir, "serve", config(one, two).toString())) {
      String oneUri = server.line();
      String twoUri = server.line();
      assertThat(openFiles(server.pid())).contains(one.data().toString(), one.hash().toString());
      // A client holding a connection to "one": it reads once, waits, then reads again.
      Path before = dir.resolve("before");
      client =
          Clients.start(
              "nbdsh",
              "-u",
              oneUri,
              "-c",
              """
          h.pread(4096, 0)
          open(%s, "w").close()
          import time
          time.sleep(3)
          h.pread(4096, 0)
          """
                  .formatted("'" + before + "'"));
      for (int i = 0; i < 200 && !Files.exists(before); i++) {
        Thread.sleep(50);
      }
      assertThat(before).as("the client read before the close").exists();
      ToolRun listed = Jverity.run("status", "--runtime-dir", runtime());
      assertThat(listed.stdoutLines())
          .containsExactly("one  verified  " + oneUri, "two  verified  " + twoUri);

      ToolRun close = Jverity.run("close", "one", "--runtime-dir", runtime());
      assertThat(close.exitCode()).as(close.toString()).isZero();
      assertThat(close.stdout()).isEmpty();
      assertThat(client.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(client.exitValue())
          .as("the client's next read fails: it was disconnected")
          .isNotZero();

      assertThat(openFiles(server.pid()))
          .as("one's files released")
          .doesNotContain(one.data().toString(), one.hash().toString())
          .contains(two.data().toString());
      assertThat(Jverity.run("status", "--runtime-dir", runtime()).stdoutLines())
          .containsExactly("two  verified  " + twoUri);
      assertThat(Clients.run("nbdinfo", oneUri).exitCode())
          .as("one is no longer served")
          .isNotZero();
      assertThat(NbdClients.sha256OfCopy(twoUri)).isEqualTo(two.sha256());
      ToolRun again = Jverity.run("close", "one", "--runtime-dir", runtime());
      assertThat(again.exitCode()).isEqualTo(ExitCode.INACTIVE);
      assertThat(again.stderrLines())
          .containsExactly(
              "jverity: one is inactive (no server answers at " + dir.resolve("run/one.ctl") + ")");

      ToolRun last = Jverity.run("close", "two", "--runtime-dir", runtime());
      assertThat(last.exitCode()).as(last.toString()).isZero();
      assertThat(server.waitFor())
          .as("the last export closed: the server exits as on SIGTERM")
          .isZero();
      assertThat(server.stderr())
          .contains(
              "jverity: export one: closed (jverity close)\n",
              "jverity: export two: closed (jverity close), the last: stopping the server\n");
      assertThat(Files.list(dir.resolve("run"))).as("status sockets removed").isEmpty();
    }
  }

  @Test
  void statusWithoutANameListsEveryExportAsTextOrJsonAndRemovesStaleSockets() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage two = FormattedImage.create(dir, "two", 16);
    try (ServerProcess server = ServerProcess.start(dir, "serve", config(one, two).toString())) {
      String oneUri = server.line();
      String twoUri = server.line();
      assertThat(dir.resolve("run"))
          .as("created private")
          .satisfies(
              d ->
                  assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(d)))
                      .isEqualTo("rwx------"));
      // A server that died leaves its socket file: nobody listens there.
      Path stale = dir.resolve("run/gone.ctl");
      try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
        dead.bind(UnixDomainSocketAddress.of(stale));
      }
      assertThat(stale).exists();

      ToolRun text = Jverity.run("status", "--runtime-dir", runtime());
      assertThat(text.exitCode()).as(text.toString()).isZero();
      assertThat(text.stdoutLines())
          .containsExactly("one  verified  " + oneUri, "two  verified  " + twoUri);
      assertThat(stale).as("the stale socket was removed").doesNotExist();

      ToolRun json = Jverity.run("status", "--json", "--runtime-dir", runtime());
      assertThat(json.exitCode()).as(json.toString()).isZero();
      assertThat(Json.parse(json.stdout()))
          .isEqualTo(
              Map.of(
                  "ok",
                  true,
                  "exitCode",
                  0L,
                  "exports",
                  List.of(
                      Map.of("name", "one", "status", "verified", "uri", oneUri, "connections", 0L),
                      Map.of(
                          "name", "two", "status", "verified", "uri", twoUri, "connections", 0L))));
      assertThat(server.terminate()).isZero();
    }
    ToolRun none = Jverity.run("status", "--json", "--runtime-dir", runtime());
    assertThat(none.exitCode()).isZero();
    assertThat(Json.parse(none.stdout()))
        .isEqualTo(Map.of("ok", true, "exitCode", 0L, "exports", List.of()));
    assertThat(Jverity.run("status", "--runtime-dir", dir.resolve("never").toString()).stdout())
        .isEmpty();
  }

  @Test
  void pidFileIsWrittenOnceListeningAndRemovedOnExitButNeverOverAnInput() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 16);
    Path pid = dir.resolve("jverity.pid");
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--pid-file",
            pid.toString())) {
      server.line();
      assertThat(Files.readString(pid)).isEqualTo(server.pid() + "\n");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pid)))
          .isEqualTo("rw-r--r--");
      assertThat(server.terminate()).isZero();
    }
    assertThat(pid).as("removed on exit").doesNotExist();

    for (Path input : List.of(image.data(), image.hash())) {
      String before = NbdClients.sha256(input);
      ToolRun r =
          Jverity.run(
              "open",
              image.data().toString(),
              "disk",
              image.hash().toString(),
              image.root(),
              "--port",
              "0",
              "--pid-file",
              input.toString(),
              "--runtime-dir",
              runtime());
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
      BadInputTest.assertOneErrorLine(r);
      assertThat(r.stderr()).contains("--pid-file " + input + ": is export disk's");
      assertThat(NbdClients.sha256(input)).as("untouched").isEqualTo(before);
    }
    // a device would be written in place and made 0644: /dev/null is no pid file
    String mode =
        PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of("/dev/null")));
    ToolRun r =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--pid-file",
            "/dev/null",
            "--runtime-dir",
            runtime());
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).contains("--pid-file /dev/null: not a regular file");
    assertThat(Files.isRegularFile(Path.of("/dev/null"))).as("/dev/null still a device").isFalse();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of("/dev/null"))))
        .isEqualTo(mode);
  }

  @Test
  void runCopiesWithNbdcopyThenExitsWithTheCommandsStatus() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 200);
    Path out = dir.resolve("out.img");
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--run",
            "echo \"$uri|$nbd|$port|$unixsocket|$exportname|${tls-unset}\"; nbdcopy \"$uri\" "
                + out
                + " && exit 5")) {
      String vars = server.line(); // the command's stdout: no URI line of jverity's in captive mode
      assertThat(vars)
          .matches(
              "nbd://127\\.0\\.0\\.1:([0-9]+)/disk\\|nbd://127\\.0\\.0\\.1:[0-9]+/disk\\|[0-9]+\\|\\|disk\\|unset");
      String port = vars.split("\\|")[2];
      assertThat(vars).startsWith("nbd://127.0.0.1:" + port + "/disk|");
      assertThat(server.waitFor()).as(server.stderr()).isEqualTo(5);
      assertThat(server.restOfStdout()).isEmpty();
    }
    assertThat(Files.mismatch(out, image.data())).as("the bytes copied").isEqualTo(-1);

    Path socket = dir.resolve("nbd.sock");
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "--veritysetup-exit-codes",
            "open",
            image.data().toString(),
            "",
            image.hash().toString(),
            image.root(),
            "--socket",
            socket.toString(),
            "--run",
            "echo \"$uri|$port|$unixsocket\"; nbdinfo --size \"$uri\"; exit 3")) {
      assertThat(server.line())
          .isEqualTo(
              "nbd+unix:///?socket=" + socket.toAbsolutePath() + "||" + socket.toAbsolutePath());
      assertThat(server.line()).isEqualTo(Integer.toString(200 * 4096));
      assertThat(server.waitFor()).as("the command's status, not translated").isEqualTo(3);
    }
    assertThat(socket).doesNotExist();
  }

  @Test
  void sigtermWhileTheCommandRunsStopsItAndWhatItStartedThenTheServer() throws Exception {
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
            "0",
            "--run",
            "sleep 1000 & echo started; wait")) {
      assertThat(server.line()).isEqualTo("started");
      List<ProcessHandle> command =
          ProcessHandle.of(server.pid()).orElseThrow().descendants().toList();
      assertThat(command).as("sh and sleep").hasSizeGreaterThanOrEqualTo(2);
      long start = System.nanoTime();
      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
      for (ProcessHandle p : command) {
        p.onExit().get(10, TimeUnit.SECONDS);
        assertThat(p.isAlive()).as("%s stopped", p).isFalse();
      }
    }
  }

  @Test
  void exitWithParentStopsTheServerWhenItsParentExits() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 16);
    Path pid = dir.resolve("server.pid");
    Path err = dir.resolve("server.err");
    List<String> java = ServerProcess.javaCommand();
    StringBuilder server = new StringBuilder();
    for (String word : java) {
      server.append('\'').append(word).append("' ");
    }
    server
        .append("open ")
        .append(image.data())
        .append(" disk ")
        .append(image.hash())
        .append(' ')
        .append(image.root())
        .append(" --port 0 --exit-with-parent --pid-file ")
        .append(pid)
        .append(" --runtime-dir ")
        .append(runtime());
    // The parent: starts the server in the background, waits until it listens, then exits.
    // (At most a minute: a server that never listens must not leave the parent behind.)
    Process parent =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                server
                    + " >/dev/null 2>"
                    + err
                    + " & i=0; while [ ! -s "
                    + pid
                    + " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; exit 0")
            .start();
    try {
      assertThat(parent.waitFor(70, TimeUnit.SECONDS))
          .as("the parent exits once the server listens")
          .isTrue();
    } finally {
      parent.destroyForcibly();
    }
    assertThat(pid)
        .as("the server listened; stderr: %s", Files.exists(err) ? Files.readString(err) : "")
        .exists();
    long serverPid = Long.parseLong(Files.readString(pid).strip());
    ProcessHandle handle = ProcessHandle.of(serverPid).orElse(null);
    if (handle != null) {
      handle.onExit().get(20, TimeUnit.SECONDS);
      assertThat(handle.isAlive()).isFalse();
    }
    assertThat(Files.readString(err))
        .contains(
            "jverity: parent process "
                + parent.pid()
                + " exited: stopping the server (--exit-with-parent)");
    assertThat(pid).as("pid file removed").doesNotExist();
  }
}
