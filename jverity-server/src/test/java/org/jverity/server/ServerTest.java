package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerityImage;
import org.jverity.io.FileDevice;
import org.jverity.nbd.ServerLimits;
import org.jverity.server.process.JvmProcess;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/**
 * The daemon in the test's own JVM (review §5.3): a {@link Server} with no process hooks serves its
 * exports to a real client, reloads a changed export list in-process (an export added, then one
 * withdrawn), and stops through {@link Server#stop()}, returning its outcome where the command
 * line's {@link JvmProcess} would end the JVM.
 */
class ServerTest {
  @TempDir Path dir;

  /** {@code blocks} pseudo-random 4 KiB blocks, formatted with a superblock: its root in hex. */
  private String image(String name, int blocks) throws IOException {
    byte[] bytes = new byte[blocks * 4096];
    new SplittableRandom(name.hashCode()).nextBytes(bytes);
    Path data = Files.write(dir.resolve(name + ".img"), bytes);
    VerityParams p = VerityParams.builder().dataBlocks(blocks).uuid(new UUID(0, blocks)).build();
    try (FileDevice d = FileDevice.openChannel(data, false);
        FileDevice h = FileDevice.openChannel(dir.resolve(name + ".hash"), true)) {
      return Hex.format(TreeBuilder.of(p).build(d, h));
    }
  }

  private ExportConfig export(String name, String root) {
    return new ExportConfig(
        name,
        "",
        dir.resolve(name + ".img").toString(),
        dir.resolve(name + ".hash").toString(),
        new ExportRoot.Given(root, ParamOverrides.NONE),
        null,
        CorruptionMode.EIO,
        false,
        false,
        false,
        IoClass.BEST_EFFORT,
        null,
        null,
        null);
  }

  /** Opens as the command line's opener does, and serves whatever opens. */
  private static final ExportOpener OPENER =
      new ExportOpener() {
        @Override
        public VerityImage open(ExportConfig e, org.jverity.image.DeviceSource source)
            throws IOException {
          try {
            return switch (e.root()) {
              case ExportRoot.Given g ->
                  VerityImage.open(
                      source,
                      e.data(),
                      e.hash(),
                      g.overrides(),
                      g.rootText(),
                      null,
                      RootCheck.NONE);
              case ExportRoot.Known k ->
                  VerityImage.open(source, e.data(), e.hash(), k.root(), RootCheck.NONE);
              case ExportRoot.Partition p ->
                  VerityImage.open(
                      source,
                      e.data(),
                      p.dataOffset(),
                      p.dataLength(),
                      e.hash(),
                      p.root(),
                      RootCheck.NONE);
            };
          } catch (java.security.GeneralSecurityException x) {
            throw new IOException(x); // never: no signature to check
          }
        }

        @Override
        public void checkServable(
            ExportConfig e,
            VerityImage image,
            org.jverity.verify.BlockRepairer fec,
            ServerLog log) {}
      };

  @Test
  void servesReloadsAndStopsInTheTestsJvm() throws Exception {
    Tool.of("nbdinfo").require();
    ExportConfig a = export("a", image("a", 64));
    ExportConfig b = export("b", image("b", 32));
    Endpoint listening =
        new Endpoint(
            "127.0.0.1",
            0,
            null,
            false,
            16 << 20,
            ServerLimits.DEFAULTS,
            dir.resolve("run"),
            TlsConfig.OFF,
            MetricsConfig.NONE);
    AtomicReference<List<ExportConfig>> config = new AtomicReference<>(List.of(a));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Server server =
        new Server(
                List.of(a),
                listening,
                Service.NONE,
                OPENER,
                Map.of(),
                new PrintWriter(out, true),
                new PrintWriter(err, true))
            .withReload(() -> new ConfigReload.Config(listening, config.get()), e -> 1);
    // A thread of its own: the common pool (one worker on two cores) is the clients' stderr
    // readers'.
    CompletableFuture<Outcome> run = new CompletableFuture<>();
    Thread main =
        Thread.ofPlatform()
            .name("server-run")
            .start(
                () -> {
                  try {
                    run.complete(server.run());
                  } catch (Throwable t) {
                    run.completeExceptionally(t);
                  }
                });
    String uri = null;
    for (int i = 0; i < 300 && uri == null; i++) {
      String printed = out.toString();
      uri = printed.contains("\n") ? printed.substring(0, printed.indexOf('\n')) : null;
      if (uri == null) {
        Thread.sleep(50);
        assertThat(run).as("server stderr: %s", err).isNotCompletedExceptionally();
      }
    }
    assertThat(uri).as("server stderr: %s", err).startsWith("nbd://127.0.0.1:");
    String base = uri.substring(0, uri.lastIndexOf('/') + 1);
    assertThat(NbdClients.sha256OfCopy(base + "a"))
        .isEqualTo(NbdClients.sha256(dir.resolve("a.img")));

    config.set(List.of(a, b)); // b added
    server.reload();
    assertThat(NbdClients.sha256OfCopy(base + "b"))
        .isEqualTo(NbdClients.sha256(dir.resolve("b.img")));
    config.set(List.of(b)); // a withdrawn
    server.reload();
    String list = Tool.of("nbdinfo").check("--list", "--json", base + "b").out();
    assertThat(list).contains("\"export-name\": \"b\"").doesNotContain("\"export-name\": \"a\"");

    server.stop();
    assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.STOPPED);
    main.join();
  }
}
