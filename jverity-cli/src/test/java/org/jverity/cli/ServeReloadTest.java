package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code serve} rereads its config on SIGHUP and on {@code jverity reload}, with real processes and
 * libnbd's clients: a connection to an unchanged export stays up and reads across the reload, one
 * to a changed or removed export ends, an added export is listed, and a config with a mistake
 * changes nothing and is one line in the log. A server started with SIGHUP ignored (nohup) says so
 * and reloads through {@code jverity reload}. Every client a test starts is killed after it, and
 * none waits unbounded, so a failing test leaves nothing behind.
 */
class ServeReloadTest {
  @TempDir Path dir;

  private final List<Process> clients = new ArrayList<>();

  @AfterEach
  void stopClients() throws InterruptedException {
    for (Process p : clients) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @BeforeAll
  static void tools() {
    Tool.of("nbdinfo").require();
    Tool.of("nbdsh").require();
    Tool.of("kill").require();
  }

  private String runtime() {
    return dir.resolve("run").toString();
  }

  /** [generic] plus one section per (name, image, description). */
  private Path config(String generic, Object... exports) throws Exception {
    StringBuilder b = new StringBuilder("[generic]\nport = 0\n" + generic + "\n");
    for (int i = 0; i < exports.length; i += 3) {
      FormattedImage t = (FormattedImage) exports[i + 1];
      b.append("[")
          .append(exports[i])
          .append("]\ndata = ")
          .append(t.data().getFileName())
          .append("\nhash = ")
          .append(t.hash().getFileName())
          .append("\nroot-hash = ")
          .append(t.root())
          .append("\ndescription = ")
          .append(exports[i + 2])
          .append("\n\n");
    }
    Path conf = dir.resolve("serve.conf");
    Path next = dir.resolve("serve.conf.new");
    Files.writeString(next, b);
    Files.move(next, conf, StandardCopyOption.REPLACE_EXISTING); // read whole or not at all
    return conf;
  }

  private static void hangUp(ServerProcess server) {
    Tool.of("kill").check("-HUP", Long.toString(server.pid()));
  }

  /** Waits (up to a minute) until the log has {@code n} lines containing {@code text}. */
  private static String awaitLog(ServerProcess server, String text, int n) throws Exception {
    for (int i = 0; i < 600; i++) {
      List<String> lines = server.stderr().lines().filter(l -> l.contains(text)).toList();
      if (lines.size() >= n) {
        return lines.get(n - 1);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no " + n + " lines with '" + text + "' in: " + server.stderr());
  }

  /**
   * An nbdsh client of {@code uri} that reads, says so by creating {@code marker}, waits until
   * {@code go} exists, then reads again: its exit status says whether the second read worked. It
   * gives up after two minutes (exit 3), and {@link #stopClients} kills it after the test anyway.
   */
  private Process heldClient(String uri, Path marker, Path go) {
    Process p =
        Clients.start(
            "nbdsh",
            "-u",
            uri,
            "-c",
            """
            import os, sys, time
            h.pread(4096, 0)
            open(%s, "w").close()
            deadline = time.monotonic() + 120
            while not os.path.exists(%s):
                if time.monotonic() > deadline:
                    sys.exit(3)
                time.sleep(0.05)
            h.pread(4096, 4096)
            """
                .formatted("'" + marker + "'", "'" + go + "'"));
    clients.add(p);
    return p;
  }

  private static void await(Path marker) throws InterruptedException {
    for (int i = 0; i < 1200 && !Files.exists(marker); i++) {
      Thread.sleep(50);
    }
    assertThat(marker).as("the client read once").exists();
  }

  @Test
  void exportsAreAddedChangedAndRemovedWhileAnUnchangedOnesConnectionReadsOn() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage two = FormattedImage.create(dir, "two", 8);
    FormattedImage three = FormattedImage.create(dir, "three", 4);
    Path conf = config("", "one", one, "first", "two", two, "second", "gone", three, "third");
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      String oneUri = server.line();
      String twoUri = server.line();
      String goneUri = server.line();
      Path go = dir.resolve("go");
      Process keeps = heldClient(oneUri, dir.resolve("one-read"), go);
      Process changed = heldClient(twoUri, dir.resolve("two-read"), go);
      Process removed = heldClient(goneUri, dir.resolve("gone-read"), go);
      await(dir.resolve("one-read"));
      await(dir.resolve("two-read"));
      await(dir.resolve("gone-read"));

      config("", "one", one, "first", "two", three, "second, now three's image", "new", two, "n");
      hangUp(server);
      assertThat(awaitLog(server, "reloaded config", 1))
          .isEqualTo("jverity: reloaded config: 1 added, 1 removed, 1 changed, 1 unchanged");
      Files.createFile(go);
      assertThat(keeps.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(keeps.exitValue()).as("the unchanged export's client read on").isZero();
      assertThat(changed.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(changed.exitValue())
          .as("the changed export's client was disconnected")
          .isNotZero();
      assertThat(removed.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(removed.exitValue())
          .as("the removed export's client was disconnected")
          .isNotZero();

      String base = oneUri.substring(0, oneUri.lastIndexOf('/'));
      ToolRun list = Clients.run("nbdinfo", "--list", base);
      assertThat(list.stdout())
          .contains("export=\"one\"", "export=\"two\"", "export=\"new\"")
          .doesNotContain("export=\"gone\"");
      assertThat(NbdClients.sha256OfCopy(twoUri))
          .as("two now serves three's image")
          .isEqualTo(three.sha256());
      assertThat(NbdClients.sha256OfCopy(base + "/new")).isEqualTo(two.sha256());
      assertThat(NbdClients.sha256OfCopy(oneUri)).isEqualTo(one.sha256());
      assertThat(Jverity.run("status", "--runtime-dir", runtime()).stdoutLines())
          .containsExactlyInAnyOrder(
              "one  verified  " + oneUri,
              "two  verified  " + twoUri,
              "new  verified  " + base + "/new");
    }
  }

  @Test
  void aConfigWithAMistakeIsRefusedWholeInOneLineAndTheOldExportsServeOn() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage two = FormattedImage.create(dir, "two", 8);
    Path conf = config("", "one", one, "first");
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      String oneUri = server.line();
      Path go = dir.resolve("go");
      Process keeps = heldClient(oneUri, dir.resolve("one-read"), go);
      await(dir.resolve("one-read"));

      // "two" would be added, but "one" lost its hash key: nothing of it is taken
      Files.writeString(
          conf,
          """
          [generic]
          port = 0

          [one]
          data = one.img
          root-hash = %s

          [two]
          data = two.img
          hash = two.hash
          root-hash = %s
          """
              .formatted(one.root(), two.root()));
      hangUp(server);
      assertThat(awaitLog(server, "config reload refused", 1))
          .isEqualTo(
              "jverity: config reload refused: "
                  + conf
                  + ":4: [one]: hash: missing (expected: the hash device's path)");
      // an export that cannot open (another image's root hash) refuses it too
      FormattedImage other = FormattedImage.create(dir, "other", 8);
      FormattedImage wrongRoot =
          new FormattedImage(other.data(), other.hash(), one.root(), one.identity());
      config("", "one", one, "first", "two", wrongRoot, "x");
      hangUp(server);
      assertThat(awaitLog(server, "config reload refused", 2))
          .startsWith("jverity: config reload refused: ")
          .doesNotContain("\n");
      // and so does a changed [generic]: where the server listens takes a restart
      config("max-connections = 7", "one", one, "first");
      hangUp(server);
      assertThat(awaitLog(server, "config reload refused", 3))
          .isEqualTo(
              "jverity: config reload refused: [generic] changed (expected: only export sections"
                  + " change on reload; restart the server for the rest)");

      Files.createFile(go);
      assertThat(keeps.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(keeps.exitValue()).as("the old export served on").isZero();
      String base = oneUri.substring(0, oneUri.lastIndexOf('/'));
      assertThat(Clients.run("nbdinfo", "--list", base).stdout())
          .contains("export=\"one\"")
          .doesNotContain("export=\"two\"");
      assertThat(server.stderr()).doesNotContain("reloaded config");
      assertThat(Jverity.run("status", "--runtime-dir", runtime()).stdoutLines())
          .containsExactly("one  verified  " + oneUri);
    }
  }

  @Test
  void underNohupSighupIsIgnoredTheServerSaysSoAndJverityReloadReloads() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage two = FormattedImage.create(dir, "two", 8);
    Path conf = config("", "one", one, "first");
    try (ServerProcess server = ServerProcess.startIgnoringHangUp(dir, "serve", conf.toString())) {
      String oneUri = server.line();
      assertThat(awaitLog(server, "SIGHUP", 1))
          .isEqualTo(
              "jverity: SIGHUP is ignored (started under nohup?): reload with `jverity reload"
                  + " NAME`");
      config("", "one", one, "first", "two", two, "second");
      hangUp(server); // ignored: it neither reloads nor stops the server
      Thread.sleep(1000);
      assertThat(server.stderr()).doesNotContain("reloaded config");

      ToolRun reload = Jverity.run("reload", "one", "--runtime-dir", runtime());
      assertThat(reload.exitCode()).as(reload.toString()).isZero();
      assertThat(reload.stdout())
          .isEqualTo("reloaded config: 1 added, 0 removed, 0 changed, 1 unchanged\n");
      assertThat(reload.stderr()).isEmpty();
      assertThat(awaitLog(server, "reloaded config", 1))
          .isEqualTo("jverity: reloaded config: 1 added, 0 removed, 0 changed, 1 unchanged");
      String base = oneUri.substring(0, oneUri.lastIndexOf('/'));
      assertThat(NbdClients.sha256OfCopy(base + "/two")).isEqualTo(two.sha256());
      assertThat(Jverity.run("status", "--runtime-dir", runtime()).stdoutLines())
          .containsExactly("one  verified  " + oneUri, "two  verified  " + base + "/two");
    }
  }

  @Test
  void aRefusedJverityReloadExitsAsServeWouldAtStartInOneLine() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    FormattedImage other = FormattedImage.create(dir, "other", 8);
    Path conf = config("", "one", one, "first");
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      String oneUri = server.line();
      assertThat(server.stderr()).doesNotContain("SIGHUP is ignored");
      // a key missing: serve refuses it at start with exit 3, reload the same
      Files.writeString(
          conf,
          """
          [generic]
          port = 0

          [one]
          data = one.img
          root-hash = %s
          """
              .formatted(one.root()));
      ToolRun atStart = Jverity.run("serve", conf.toString());
      ToolRun missing = Jverity.run("reload", "one", "--runtime-dir", runtime());
      assertThat(atStart.exitCode()).isEqualTo(3);
      assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(atStart.exitCode());
      assertThat(missing.stdout()).isEmpty();
      assertThat(missing.stderr())
          .isEqualTo(
              "jverity: config reload refused: "
                  + conf
                  + ":4: [one]: hash: missing (expected: the hash device's path)\n");
      // another image's root hash: the exit code of a wrong root hash, 7, as serve's
      FormattedImage wrongRoot =
          new FormattedImage(other.data(), other.hash(), one.root(), one.identity());
      config("", "one", one, "first", "two", wrongRoot, "x");
      ToolRun wrongAtStart = Jverity.run("serve", conf.toString());
      ToolRun wrong = Jverity.run("reload", "one", "--runtime-dir", runtime());
      assertThat(wrongAtStart.exitCode()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
      assertThat(wrong.exitCode()).as(wrong.toString()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
      assertThat(wrong.stderr().lines()).hasSize(1);
      assertThat(wrong.stderr()).startsWith("jverity: config reload refused: ");
      assertThat(awaitLog(server, "config reload refused", 2)).isEqualTo(wrong.stderr().strip());

      assertThat(Jverity.run("status", "--runtime-dir", runtime()).stdoutLines())
          .as("the old export serves on")
          .containsExactly("one  verified  " + oneUri);
      ToolRun none = Jverity.run("reload", "nothing", "--runtime-dir", runtime());
      assertThat(none.exitCode()).isEqualTo(ExitCode.INACTIVE);
      assertThat(none.stderr())
          .isEqualTo(
              "jverity: nothing is inactive (no server answers at "
                  + dir.resolve("run/nothing.ctl")
                  + ")\n");
    }
  }

  @Test
  void anOpenHasNoConfigToReload() throws Exception {
    FormattedImage one = FormattedImage.create(dir, "one", 16);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            one.data().toString(),
            "one",
            one.hash().toString(),
            one.root(),
            "--port",
            "0")) {
      server.line();
      ToolRun reload = Jverity.run("reload", "one", "--runtime-dir", runtime());
      assertThat(reload.exitCode()).isEqualTo(ExitCode.IO_ERROR);
      assertThat(reload.stderr())
          .isEqualTo(
              "jverity: one: this server has no config to reread (expected: an export of jverity"
                  + " serve CONFIG)\n");
    }
  }
}
