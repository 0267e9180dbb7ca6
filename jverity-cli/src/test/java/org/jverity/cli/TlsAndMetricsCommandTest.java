package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code open --tls=require} and {@code --metrics-port} as a user runs them: an nbds:// URI that
 * nbdcopy reads over TLS (and a plain client refused), and Prometheus metrics that count it.
 */
class TlsAndMetricsCommandTest {
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdcopy").require();
    Tool.of("nbdinfo").require();
    Tool.of("openssl").require();
  }

  /** A self-signed EC certificate for 127.0.0.1: the server's, and the client's CA. */
  private Path[] pki() throws Exception {
    Path server = Files.createDirectories(dir.resolve("server-pki"));
    Path client = Files.createDirectories(dir.resolve("client-pki"));
    ToolRun made =
        Clients.run(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            server.resolve("server-key.pem").toString(),
            "-out",
            server.resolve("server-cert.pem").toString(),
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost");
    assertThat(made.exitCode()).as(made.toString()).isZero();
    Files.copy(server.resolve("server-cert.pem"), client.resolve("ca-cert.pem"));
    return new Path[] {server, client};
  }

  @Test
  void servesOverRequiredTlsAndCountsItInMetrics() throws Exception {
    Path[] pki = pki();
    FormattedImage image = FormattedImage.create(dir, "disk", 128);
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--tls=require",
            "--tls-certificates",
            pki[0].toString(),
            "--metrics-port",
            "0")) {
      String uri = server.line();
      assertThat(uri).matches("nbds://127\\.0\\.0\\.1:[0-9]+/disk");
      assertThat(NbdClients.sha256OfCopy(uri + "?tls-certificates=" + pki[1]))
          .isEqualTo(image.sha256());
      ToolRun plain = Clients.run("nbdinfo", "--size", uri.replace("nbds://", "nbd://"));
      assertThat(plain.exitCode()).as("a client without TLS is refused: " + plain).isNotZero();

      Matcher m = Pattern.compile("metrics: (http://\\S+)").matcher(awaitLog(server, "metrics: "));
      assertThat(m.find()).isTrue();
      String body = new String(URI.create(m.group(1)).toURL().openStream().readAllBytes());
      assertThat(body)
          .contains("jverity_nbd_requests_total{command=\"read\",export=\"disk\",result=\"ok\"}")
          .contains("jverity_nbd_request_duration_seconds_bucket")
          .contains("jverity_nbd_export_verified{export=\"disk\"} 1.0");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void tlsOptionsThatCannotWorkAreRefused() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    ToolRun onSocket =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--socket",
            dir.resolve("s").toString(),
            "--tls=require",
            "--tls-certificates",
            dir.toString());
    assertThat(onSocket.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(onSocket.stderrLines())
        .hasSize(1)
        .first()
        .asString()
        .contains("--tls=require works over TCP only");
    ToolRun noCerts =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--port",
            "0",
            "--tls=on",
            "--tls-certificates",
            dir.resolve("nothing").toString());
    assertThat(noCerts.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(noCerts.stderrLines()).hasSize(1);
    ToolRun badMode =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--tls=maybe");
    assertThat(badMode.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    ToolRun certsWithoutTls =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            image.root(),
            "--tls-certificates",
            dir.toString());
    assertThat(certsWithoutTls.exitCode()).isEqualTo(ExitCode.USAGE);
  }

  private static String awaitLog(HostedServer server, String text) throws InterruptedException {
    long until = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < until) {
      String err = server.stderr();
      if (err.contains(text)) {
        return err;
      }
      Thread.sleep(50);
    }
    return server.stderr();
  }
}
