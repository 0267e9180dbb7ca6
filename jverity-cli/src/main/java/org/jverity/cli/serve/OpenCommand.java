package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.verity.CorruptionOptions;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.IoClassName;
import org.jverity.server.Endpoint;
import org.jverity.cli.syntax.Port;
import org.jverity.cli.verity.RootHashSignatureOptions;
import org.jverity.cli.verity.RootHashes;
import org.jverity.server.RuntimeDir;
import org.jverity.server.MetricsConfig;
import org.jverity.server.TlsConfig;
import org.jverity.server.TlsMode;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.TimeSpan;
import org.jverity.cli.verity.VerityOptions;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.server.ExportConfig;
import org.jverity.server.Server;

/**
 * {@code jverity open DATA NAME HASH ROOT_HASH}: veritysetup open's arguments, but instead of a
 * device-mapper target the image becomes export NAME of a read-only NBD server whose every byte has
 * verified. Prints the URI and serves until SIGINT or SIGTERM.
 */
public final class OpenCommand implements Command {
  Path data;
  String name;
  Path hash;
  String rootHash;
  Path rootHashFile;
  final VerityOptions options = new VerityOptions();
  final RootHashSignatureOptions signature = new RootHashSignatureOptions();
  final CorruptionOptions corruption = new CorruptionOptions();
  String bind = "127.0.0.1";
  int port = Port.NBD;
  Path socket;
  boolean stdin;
  long cacheSize = HashBlockCache.DEFAULT_CAPACITY_BYTES;
  String description = "";
  IoClass ioClass = IoClass.BEST_EFFORT;
  Integer maxConnections;
  Duration idleTimeout;
  Integer maxInFlight;
  Path runtimeDir;
  final FecOptions fec = new FecOptions();
  String tls;
  Path tlsCertificates;
  boolean tlsVerifyPeer;
  Integer metricsPort;
  String metricsBind;
  boolean json;
  final ServiceOptions service = new ServiceOptions();

  public static final Syntax<OpenCommand> SYNTAX = Syntax.command("open",
      "Serve DATA over NBD as export NAME, every byte verified against HASH and ROOT_HASH"
        + " (veritysetup open's arguments). Prints the URI (nbd://... or nbd+unix://...) on stdout, then"
        + " serves until SIGINT, SIGTERM or jverity close NAME (exit 0). Logs connections and corrupted blocks on stderr."
        + " Refuses to start, with verify's diagnosis and exit code, when the image could serve nothing (a wrong"
        + " root hash, wrong parameters, another image's hash file or a damaged top hash block); damaged blocks"
        + " elsewhere do not stop it.",
      OpenCommand::new)
      .parameter("DATA", "Data image.", (c, v) -> c.data = FileName.parse(v))
      .parameter("NAME", "Export name clients ask for (\"\" for the default export).", (c, v) -> c.name = v)
      .parameter("HASH", "Hash device (may be DATA with --hash-offset).", (c, v) -> c.hash = FileName.parse(v))
      .optionalParameter("ROOT_HASH", "Root hash in hex, or the image identity (verity1:...) that format prints (or use --root-hash-file).", (c, v) -> c.rootHash = v)
      .option("--root-hash-file", "FILE", "Read the root hash (hex) or identity from FILE.", (c, v) -> c.rootHashFile = FileName.parse(v))
      .include(VerityOptions.CHECK, c -> c.options)
      .include(RootHashSignatureOptions.SYNTAX, c -> c.signature)
      .include(CorruptionOptions.SYNTAX, c -> c.corruption)
      .option("--bind", "ADDR", "Address to listen on (default 127.0.0.1).", (c, v) -> c.bind = v)
      .option("--port", "N", "TCP port (default 10809; 0: any free port, printed in the URI).", (c, v) -> c.port = Port.parse(v))
      .option("--socket", "PATH", "Listen on a Unix socket instead of TCP.", (c, v) -> c.socket = FileName.parse(v))
      .flag("--stdin", "Serve one connection on stdin/stdout, as nbdkit -s (for nbdfuse --command, inetd); prints no URI.", c -> c.stdin = true)
      .option("--cache-size", "BYTES", "Hash block cache size (default " + (HashBlockCache.DEFAULT_CAPACITY_BYTES >> 20) + "M); bin/jverity sizes the heap from it.", (c, v) -> c.cacheSize = ByteSize.parse(v))
      .option("--description", "TEXT", "Description shown to clients (nbdinfo).", (c, v) -> c.description = v)
      .option("--io-class", "CLASS", "I/O class of the export's reads: none, real-time, best-effort (default) or idle.", (c, v) -> c.ioClass = IoClassName.parse(v))
      .option("--max-connections", "N", "Connections open at once (default 4096).", (c, v) -> c.maxConnections = WholeNumber.parseInt(v))
      .option("--idle-timeout", "TIME", "Close a connection silent this long: seconds, or with ms, s, m, h (default 0: never).", (c, v) -> c.idleTimeout = TimeSpan.parse(v))
      .option("--max-in-flight", "N", "Requests in flight per connection (default 64).", (c, v) -> c.maxInFlight = WholeNumber.parseInt(v))
      .option("--runtime-dir", "DIR", "Where the status socket goes (default " + RuntimeDir.DEFAULTS + ").", (c, v) -> c.runtimeDir = FileName.parse(v))
      .include(FecOptions.SYNTAX, c -> c.fec)
      .option("--tls", "MODE", "off (default), on (offered) or require.", (c, v) -> c.tls = v)
      .option("--tls-certificates", "DIR", "nbdkit's layout: server-cert.pem, server-key.pem, ca-cert.pem (default $HOME/.pki/nbdkit or /etc/pki/nbdkit).", (c, v) -> c.tlsCertificates = FileName.parse(v))
      .flag("--tls-verify-peer", "Clients must present a certificate signed by ca-cert.pem.", c -> c.tlsVerifyPeer = true)
      .option("--metrics-port", "N", "Serve Prometheus metrics on this port (/metrics).", (c, v) -> c.metricsPort = WholeNumber.parseInt(v))
      .option("--metrics-bind", "ADDR", "Address of the metrics endpoint (default 127.0.0.1).", (c, v) -> c.metricsBind = v)
      .flag("--json", "Print the URI as a JSON event, {\"event\":\"listening\",\"export\":NAME,\"uri\":URI}, one object a line;"
          + " a failure as {\"ok\":false,\"exitCode\":N,\"error\":...}.", c -> c.json = true)
      .include(ServiceOptions.SYNTAX, c -> c.service);

  @Override
  public int run(Io io) throws IOException {
    Checks.requireCacheSize(cacheSize);
    signature.checkGiven();
    if (stdin && (socket != null || io.given().contains("--port") || io.given().contains("--bind"))) {
      throw new CliException(ExitCode.USAGE, "--stdin serves stdin: give no --socket, --port or --bind");
    }
    if (stdin && json) {
      throw new CliException(ExitCode.USAGE, "--stdin gives stdout to the NBD protocol: give no --json");
    }
    if (socket != null && (io.given().contains("--port") || io.given().contains("--bind"))) {
      throw new CliException(ExitCode.USAGE, "--socket listens on a Unix socket: give no --port or --bind");
    }
    TlsConfig tlsConfig = TlsConfig.of(tls, tlsCertificates, tlsVerifyPeer, "--");
    MetricsConfig metrics = MetricsConfig.of(metricsBind, metricsPort, "--");
    if (tlsConfig.mode() == TlsMode.REQUIRE && (socket != null || stdin)) {
      throw new CliException(ExitCode.USAGE, "--tls=require works over TCP only: no client could start TLS over "
          + (stdin ? "--stdin" : "--socket"));
    }
    Endpoint listening = new Endpoint(bind, port, socket, stdin, cacheSize,
        Endpoint.limits(maxConnections, maxInFlight, idleTimeout, "--"), runtimeDir, tlsConfig, metrics);
    String rootText = RootHashes.text("open", rootHash, rootHashFile);
    fec.check(); // before listening: a FEC file that cannot serve, or FEC options without one
    ExportConfig export = new ExportConfig(name, description, data, hash, rootText, options.overrides(),
        ExportChecks.signature(signature), corruption.mode(), corruption.ignoreZeroBlocks, corruption.checkAtMostOnce,
        ioClass, fec.given() ? fec.source() : null);
    Map<Path, String> inputs = new LinkedHashMap<>();
    if (rootHashFile != null) {
      inputs.put(rootHashFile, "the root hash file");
    }
    service.check(listening);
    return ExitCode.of(new Server(List.of(export), listening, service.toService(), ExportChecks.INSTANCE, inputs,
        ExitCode::of, io.out(), io.err()).withJsonEvents(json).run());
  }

}
