package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up: a command over local files loads nothing of jverity-remote nor java.net.http (the
 * budget is ~100 ms); a URL does, and an {@code http://} one no TLS (loading the system trust store
 * cost a second). Classes counted with {@code -Xlog:class+load} in a child JVM.
 */
class RemoteStartupTest {
  @TempDir Path dir;

  /** The classes {@code jverity args...} loaded, one a line, and its exit code first. */
  private List<String> loaded(String... args) throws Exception {
    Path log = dir.resolve("classes-" + System.nanoTime() + ".log");
    List<String> cmd = ServerProcess.javaCommand();
    cmd.add(1, "-Xlog:class+load=info:file=" + log);
    cmd.addAll(List.of(args));
    Process p =
        Jverity.detailed(new ProcessBuilder(cmd))
            .redirectOutput(dir.resolve("out").toFile())
            .redirectError(dir.resolve("err").toFile())
            .start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return Files.readAllLines(log).stream().filter(l -> l.contains(" source: ")).toList();
  }

  private static List<String> remote(List<String> classes) {
    return classes.stream()
        .filter(l -> l.contains("org.jverity.remote.") || l.contains("java.net.http."))
        .toList();
  }

  @Test
  void localCommandsLoadNothingRemote() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    String data = image.data().toString();
    String hash = image.hash().toString();
    Path out = dir.resolve("copy");
    assertThat(remote(loaded("dump", hash))).isEmpty();
    assertThat(remote(loaded("read", data, hash, image.root(), "-o", out.toString()))).isEmpty();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(image.data()));
    assertThat(remote(loaded("verify", data, hash, image.root(), "--cache-max", "1M"))).isEmpty();
    assertThat(remote(loaded("digest", data))).isEmpty();
    assertThat(remote(loaded("read", "--help"))).isEmpty();
  }

  @Test
  void aUrlLoadsTheRemoteModule() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    // nothing listens on port 9: the read fails, after the remote source was made
    List<String> classes =
        loaded(
            "read",
            "http://127.0.0.1:9/disk.img",
            image.hash().toString(),
            image.root(),
            "-o",
            dir.resolve("x").toString());
    assertThat(remote(classes)).anyMatch(l -> l.contains("org.jverity.remote.RemoteSource "));
  }

  @Test
  void aPlainHttpReadLoadsNoTls() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    Path out = dir.resolve("copy");
    List<String> classes;
    try (TrainingRangeServer http = new TrainingRangeServer(image.data().getParent())) {
      classes =
          loaded(
              "read",
              http.url(image.data().getFileName().toString()),
              http.url(image.hash().getFileName().toString()),
              image.root(),
              "-o",
              out.toString());
    }
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(image.data()));
    assertThat(remote(classes)).anyMatch(l -> l.contains("java.net.http.HttpClient "));
    assertThat(classes)
        .noneMatch(l -> l.contains("sun.security.ssl.TrustStoreManager"))
        .noneMatch(l -> l.contains("sun.security.x509.X509CertImpl "))
        .noneMatch(l -> l.contains("sun.security.ssl.SSLContextImpl "));
  }
}
