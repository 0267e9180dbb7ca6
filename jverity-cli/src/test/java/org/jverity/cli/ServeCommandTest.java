package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jverity serve CONFIG} in a child JVM: two exports of one server, listed and read by libnbd's clients. */
class ServeCommandTest {
  @TempDir Path dir;

  @Test
  void servesTwoExportsListedByNbdinfoEachWithItsStatus() throws Exception {
    NbdClients.require("nbdinfo", "libnbd-bin");
    TestImage root = TestImage.create(dir, "root", 100);
    TestImage home = TestImage.create(dir, "home", 30);
    Files.writeString(dir.resolve("home.roothash"), home.identity() + "\n");
    Path conf = Files.writeString(dir.resolve("serve.conf"), """
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
        """.formatted(root.root()));
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      String rootUri = server.line();
      String homeUri = server.line();
      assertThat(rootUri).matches("nbd://127\\.0\\.0\\.1:[0-9]+/root");
      assertThat(homeUri).isEqualTo(rootUri.replace("/root", "/home"));

      ToolRun list = NbdClients.run("nbdinfo", "--list", "--json", rootUri);
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.stdout()).contains("\"export-name\": \"root\"", "\"export-name\": \"home\"",
          "\"description\": \"the root file system\"", "\"export-size\": " + 100 * 4096,
          "\"export-size\": " + 30 * 4096);
      assertThat(NbdClients.sha256OfCopy(rootUri)).isEqualTo(root.sha256());
      assertThat(NbdClients.sha256OfCopy(homeUri)).isEqualTo(home.sha256());

      String runtime = dir.resolve("run").toString();
      ToolRun rootStatus = Jverity.run("status", "root", "--runtime-dir", runtime);
      assertThat(rootStatus.stdout()).startsWith("root is active.\n")
          .contains("  flags:         check_at_most_once", "  uri:           " + rootUri);
      ToolRun homeStatus = Jverity.run("status", "home", "--runtime-dir", runtime);
      assertThat(homeStatus.stdout()).contains("  identity:      " + home.identity(), "  io class:      idle",
          "  status:        verified");

      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(Files.list(dir.resolve("run"))).as("status sockets removed").isEmpty();
    }
  }
}
