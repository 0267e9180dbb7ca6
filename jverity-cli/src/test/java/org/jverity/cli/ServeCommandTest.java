package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code jverity serve CONFIG} in a child JVM: two exports of one server, listed and read by
 * libnbd's clients.
 */
class ServeCommandTest {
  @TempDir Path dir;

  @Test
  void jsonPrintsOneListeningEventPerExport() throws Exception {
    FormattedImage a = FormattedImage.create(dir, "a", 20);
    FormattedImage b = FormattedImage.create(dir, "b", 10);
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
        [generic]
        port = 0
        [a]
        data = a.img
        hash = a.hash
        root-hash = %s
        [b]
        data = b.img
        hash = b.hash
        root-hash = %s
        """
                .formatted(a.root(), b.root()));
    try (HostedServer server = HostedServer.start(dir, "serve", conf.toString(), "--json")) {
      var first = JsonCheck.object(server.line());
      var second = JsonCheck.object(server.line());
      assertThat(first).containsEntry("event", "listening").containsEntry("export", "a");
      assertThat(second).containsEntry("event", "listening").containsEntry("export", "b");
      assertThat((String) first.get("uri")).matches("nbd://127\\.0\\.0\\.1:[0-9]+/a");
      assertThat(second.get("uri")).isEqualTo(((String) first.get("uri")).replace("/a", "/b"));
      var status =
          JsonCheck.stdout(
              Jverity.run("status", "b", "--runtime-dir", dir.resolve("run").toString(), "--json"));
      assertThat(status)
          .containsEntry("export", "b")
          .containsEntry("uri", second.get("uri"))
          .containsEntry("status", "verified")
          .containsEntry("rootHash", b.root());
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
    // a config that cannot be served: the one failure object
    Path bad =
        Files.writeString(
            dir.resolve("bad.conf"),
            "[a]\ndata = nope.img\nhash = a.hash\nroot-hash = " + a.root() + "\n");
    JsonCheck.failure(Jverity.run("serve", bad.toString(), "--json"));
  }

  @Test
  void servesTwoExportsListedByNbdinfoEachWithItsStatus() throws Exception {
    Tool.of("nbdinfo").require();
    FormattedImage root = FormattedImage.create(dir, "root", 100);
    FormattedImage home = FormattedImage.create(dir, "home", 30);
    Files.writeString(dir.resolve("home.roothash"), home.identity() + "\n");
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
        # two images, one server
        [generic]
        port = 0
        cache-size = 8M

        [root]
        data = root.img
        hash = root.hash
        root-hash = %s
        description = the root file system
        check-at-most-once = true

        [home]
        data = home.img
        hash = home.hash
        root-hash-file = home.roothash
        io-class = idle
        """
                .formatted(root.root()));
    try (HostedServer server = HostedServer.start(dir, "serve", conf.toString())) {
      String rootUri = server.line();
      String homeUri = server.line();
      assertThat(rootUri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/root");
      assertThat(homeUri).isEqualTo(rootUri.replace("/root", "/home"));

      ToolRun list = Clients.run("nbdinfo", "--list", "--json", rootUri);
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.stdout())
          .contains(
              "\"export-name\": \"root\"",
              "\"export-name\": \"home\"",
              "\"description\": \"the root file system\"",
              "\"export-size\": " + 100 * 4096,
              "\"export-size\": " + 30 * 4096);
      assertThat(NbdClients.sha256OfCopy(rootUri)).isEqualTo(root.sha256());
      assertThat(NbdClients.sha256OfCopy(homeUri)).isEqualTo(home.sha256());

      String runtime = dir.resolve("run").toString();
      ToolRun rootStatus = Jverity.run("status", "root", "--runtime-dir", runtime);
      assertThat(rootStatus.stdout())
          .startsWith("root is active.\n")
          .contains("  flags:         check_at_most_once", "  uri:           " + rootUri);
      ToolRun homeStatus = Jverity.run("status", "home", "--runtime-dir", runtime);
      assertThat(homeStatus.stdout())
          .contains(
              "  identity:      " + home.identity(),
              "  io class:      idle",
              "  status:        verified");

      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(Files.list(dir.resolve("run"))).as("status sockets removed").isEmpty();
    }
  }
}
