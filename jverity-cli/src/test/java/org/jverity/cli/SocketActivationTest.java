package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * Socket activation with real processes: libnbd's own (nbdcopy's and nbdinfo's {@code [ CMD ]},
 * which pass a Unix socket as fd 3 with LISTEN_FDS and LISTEN_PID), and a launcher that passes a
 * TCP or Unix socket as systemd does ({@code socket-activate.py}).
 */
class SocketActivationTest {
  @TempDir Path dir;

  @BeforeAll
  static void tools() {
    Tool.of("nbdcopy").require();
    Tool.of("nbdinfo").require();
    Tool.of("python3").require();
  }

  private List<String> open(FormattedImage image, String... more) {
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(
        List.of(
            "open",
            image.data().toString(),
            "x",
            image.hash().toString(),
            image.root(),
            "--runtime-dir",
            dir.resolve("run").toString()));
    cmd.addAll(List.of(more));
    return cmd;
  }

  @Test
  void nbdcopyStartsOpenWithItsSocketAndCopiesTheVerifiedImageToStdout() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "one", 256);
    Path copy = dir.resolve("copy");
    List<String> args =
        new ArrayList<>(List.of(Tool.of("nbdcopy").require().toString(), "--", "["));
    args.addAll(open(image));
    args.addAll(List.of("]", "-"));
    Process p =
        new ProcessBuilder(args)
            .redirectOutput(copy.toFile())
            .redirectError(dir.resolve("err").toFile())
            .start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("err"))).isZero();
    assertThat(NbdClients.sha256(copy))
        .as("stdout holds the image alone: no URI printed into it")
        .isEqualTo(image.sha256());
    assertThat(Files.readString(dir.resolve("err")))
        .contains("listening on the socket passed by socket activation (fd 3)");
  }

  @Test
  void nbdinfoListsEveryExportOfServeThroughItsSocket() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage two = FormattedImage.create(dir, "two", 8);
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            runtime-dir = run

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
    List<String> cmd = new ArrayList<>(List.of("nbdinfo", "--list", "--", "["));
    cmd.addAll(ServerProcess.javaCommand());
    cmd.addAll(List.of("serve", conf.toString(), "]"));
    ToolRun r = Clients.run(cmd.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.stdout()).contains("export=\"one\"", "export=\"two\"", "export-size: 65536");
  }

  /**
   * The serve.conf of docs/serving.md says where to listen ({@code port = 10809}); its {@code
   * nbdinfo --list -- [ jverity serve serve.conf ]} serves that same file on the socket it passes:
   * the key is ignored, in one line naming it, where the option {@code --port} is refused (as
   * nbdkit's -p).
   */
  @Test
  void aConfigSayingWhereToListenIsServedOnThePassedSocket() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            bind = 127.0.0.1
            port = 10809
            runtime-dir = run

            [one]
            data = one.img
            hash = one.hash
            root-hash = %s
            """
                .formatted(one.root()));
    List<String> cmd = new ArrayList<>(List.of("nbdinfo", "--list", "--", "["));
    cmd.addAll(ServerProcess.javaCommand());
    cmd.addAll(List.of("serve", conf.toString(), "]"));
    ToolRun r = Clients.run(cmd.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.stdout()).contains("export=\"one\"", "export-size: 65536");
    assertThat(r.stderr().lines().filter(l -> l.contains("ignored under socket activation")))
        .containsExactly(
            "jverity: "
                + conf
                + ":2: bind: ignored under socket activation (LISTEN_PID is this"
                + " process): it listens on the socket passed",
            "jverity: "
                + conf
                + ":3: port: ignored under socket activation (LISTEN_PID is this"
                + " process): it listens on the socket passed");
  }

  @Test
  void aTcpSocketPassedAsSystemdDoesIsServedAndStdioOutlivesItsClose() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "one", 64);
    try (Launched server = Launched.start(dir, "tcp", open(image))) {
      String uri = "nbd://127.0.0.1:" + server.address + "/x";
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(image.sha256());
      // A client still connected when SIGTERM comes: its drain is logged after the listener
      // closed, which the JDK's inherited channel would have left writing to /dev/null.
      try (Socket held = new Socket()) {
        held.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(server.address)));
        InputStream in = held.getInputStream();
        assertThat(in.readNBytes(8)).asString().isEqualTo("NBDMAGIC");
        String peer = "127.0.0.1:" + held.getLocalPort();
        server.waitForLog(peer + " connected");
        ProcessHandle.of(server.pid).orElseThrow().destroy(); // SIGTERM
        assertThat(server.waitFor()).isZero();
        assertThat(server.stderr())
            .as("the held connection's end is logged after the socket closed")
            .contains(peer + " disconnected");
      }
    }
  }

  @Test
  void aUnixSocketPassedAsSystemdDoesIsServed() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "one", 32);
    Path socket = dir.resolve("nbd.sock");
    try (Launched server = Launched.start(dir, "unix:" + socket, open(image))) {
      assertThat(NbdClients.sha256OfCopy("nbd+unix:///x?socket=" + socket))
          .isEqualTo(image.sha256());
    }
  }

  @Test
  void optionsSayingWhereToListenAreRefusedUnderActivation() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "one", 8);
    try (Launched server = Launched.start(dir, "tcp", open(image, "--port", "0"))) {
      assertThat(server.waitFor()).isEqualTo(ExitCode.USAGE);
      assertThat(server.stderr().strip().lines())
          .containsExactly(
              "jverity: --port: given under socket activation (LISTEN_PID is this process): it"
                  + " listens on the socket passed (expected: no --port)");
    }
  }

  @Test
  void variablesForAnotherProcessAreIgnored() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "one", 8);
    List<String> cmd = open(image, "--port", "0");
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            Map.of("LISTEN_PID", "1", "LISTEN_FDS", "1"),
            cmd.subList(ServerProcess.javaCommand().size(), cmd.size()).toArray(String[]::new))) {
      String uri = server.line();
      assertThat(uri).startsWith("nbd://127.0.0.1:");
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(image.sha256());
    }
  }

  /** A command run by socket-activate.py: its address and pid, its stderr in a file. */
  private static final class Launched implements AutoCloseable {
    final Process launcher;
    final String address;
    final long pid;
    final Path err;

    private Launched(Process launcher, String address, long pid, Path err) {
      this.launcher = launcher;
      this.address = address;
      this.pid = pid;
      this.err = err;
    }

    static Launched start(Path dir, String where, List<String> command) throws IOException {
      Path script = dir.resolve("socket-activate.py");
      try (InputStream in = SocketActivationTest.class.getResourceAsStream("socket-activate.py")) {
        Files.write(script, in.readAllBytes());
      }
      List<String> cmd = new ArrayList<>(List.of("python3", script.toString(), where));
      cmd.addAll(command);
      Path err = Files.createTempFile(dir, "activated", ".err");
      Process p = Jverity.detailed(new ProcessBuilder(cmd)).redirectError(err.toFile()).start();
      String line =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      assertThat(line).as("the launcher's address and pid; stderr: %s", read(err)).isNotNull();
      String[] parts = line.split(" ");
      return new Launched(p, parts[0], Long.parseLong(parts[1]), err);
    }

    int waitFor() throws InterruptedException {
      assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).as("exited; %s", stderr()).isTrue();
      return launcher.exitValue();
    }

    /** Waits (up to a minute) until stderr has a line ending with {@code text}. */
    void waitForLog(String text) throws InterruptedException {
      for (int i = 0; i < 600; i++) {
        if (stderr().lines().anyMatch(l -> l.endsWith(text))) {
          return;
        }
        Thread.sleep(100);
      }
      throw new AssertionError("no line ending '" + text + "' in: " + stderr());
    }

    String stderr() {
      return read(err);
    }

    private static String read(Path p) {
      try {
        return Files.readString(p);
      } catch (IOException e) {
        return "(" + e + ")";
      }
    }

    @Override
    public void close() {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      launcher.destroyForcibly();
    }
  }
}
