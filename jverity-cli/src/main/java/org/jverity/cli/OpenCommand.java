package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jverity open DATA NAME HASH ROOT_HASH}: veritysetup open's arguments, but instead of a
 * device-mapper target the image becomes export NAME of a read-only NBD server whose every byte has
 * verified. Prints the URI and serves until SIGINT or SIGTERM.
 */
@Command(
    name = "open",
    description = "Serve DATA over NBD as export NAME, every byte verified against HASH and ROOT_HASH"
        + " (veritysetup open's arguments). Prints the URI (nbd://... or nbd+unix://...) on stdout, then"
        + " serves until SIGINT or SIGTERM (exit 0). Logs connections and corrupted blocks on stderr.")
final class OpenCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DATA", description = "Data image.")
  Path data;

  @Parameters(index = "1", paramLabel = "NAME", description = "Export name clients ask for (\"\" for the default export).")
  String name;

  @Parameters(index = "2", paramLabel = "HASH", description = "Hash device (may be DATA with --hash-offset).")
  Path hash;

  @Parameters(index = "3", paramLabel = "ROOT_HASH", arity = "0..1",
      description = "Root hash in hex, or the image identity (verity1:...) that format prints (or use --root-hash-file).")
  String rootHash;

  @Option(names = "--root-hash-file", paramLabel = "FILE", description = "Read the root hash (hex) or identity from FILE.")
  Path rootHashFile;

  @Mixin VerityOptions options;

  @Mixin RootHashSignatureOptions signature;

  @Mixin CorruptionOptions corruption;

  @Option(names = "--bind", paramLabel = "ADDR", description = "Address to listen on (default 127.0.0.1).")
  String bind = "127.0.0.1";

  @Option(names = "--port", paramLabel = "N", converter = Port.class,
      description = "TCP port (default 10809; 0: any free port, printed in the URI).")
  int port = Port.NBD;

  @Option(names = "--socket", paramLabel = "PATH", description = "Listen on a Unix socket instead of TCP.")
  Path socket;

  @Option(names = "--stdin",
      description = "Serve one connection on stdin/stdout, as nbdkit -s (for nbdfuse --command, inetd); prints no URI.")
  boolean stdin;

  @Option(names = "--cache-size", paramLabel = "BYTES", converter = ByteSize.class,
      description = "Hash block cache size (default 64M).")
  long cacheSize = HashBlockCache.DEFAULT_CAPACITY_BYTES;

  @Option(names = "--description", paramLabel = "TEXT", description = "Description shown to clients (nbdinfo).")
  String description = "";

  @Option(names = "--io-class", paramLabel = "CLASS", converter = IoClassName.class,
      description = "I/O class of the export's reads: none, real-time, best-effort (default) or idle.")
  IoClass ioClass = IoClass.BEST_EFFORT;

  @Option(names = "--max-connections", paramLabel = "N", description = "Connections open at once (default 4096).")
  Integer maxConnections;

  @Option(names = "--idle-timeout", paramLabel = "TIME", converter = TimeSpan.class,
      description = "Close a connection silent this long: seconds, or with ms, s, m, h (default 0: never).")
  Duration idleTimeout;

  @Option(names = "--max-in-flight", paramLabel = "N", description = "Requests in flight per connection (default 64).")
  Integer maxInFlight;

  @Option(names = "--runtime-dir", paramLabel = "DIR",
      description = "Where the status socket goes (default $JVERITY_RUNTIME_DIR, $XDG_RUNTIME_DIR/jverity or /run/jverity).")
  Path runtimeDir;

  @Mixin FecOptions fec;

  @Option(names = "--tls", paramLabel = "MODE", description = "off (default), on (offered) or require.")
  String tls;

  @Option(names = "--tls-certificates", paramLabel = "DIR",
      description = "nbdkit's layout: server-cert.pem, server-key.pem, ca-cert.pem (default $HOME/.pki/nbdkit or /etc/pki/nbdkit).")
  Path tlsCertificates;

  @Option(names = "--tls-verify-peer", description = "Clients must present a certificate signed by ca-cert.pem.")
  boolean tlsVerifyPeer;

  @Option(names = "--metrics-port", paramLabel = "N", description = "Serve Prometheus metrics on this port (/metrics).")
  Integer metricsPort;

  @Option(names = "--metrics-bind", paramLabel = "ADDR", description = "Address of the metrics endpoint (default 127.0.0.1).")
  String metricsBind;

  @Override
  public Integer call() throws IOException {
    Checks.requireCacheSize(cacheSize);
    signature.checkGiven();
    if (stdin && (socket != null || given("--port") || given("--bind"))) {
      throw new CliException(ExitCode.USAGE, "--stdin serves stdin: give no --socket, --port or --bind");
    }
    if (socket != null && (given("--port") || given("--bind"))) {
      throw new CliException(ExitCode.USAGE, "--socket listens on a Unix socket: give no --port or --bind");
    }
    Security security = Security.of(tls, tlsCertificates, tlsVerifyPeer, metricsBind, metricsPort, "--");
    if (security.tls().equals("require") && (socket != null || stdin)) {
      throw new CliException(ExitCode.USAGE, "--tls=require works over TCP only: no client could start TLS over "
          + (stdin ? "--stdin" : "--socket"));
    }
    Listening listening = new Listening(bind, port, socket, stdin, cacheSize,
        Listening.limits(maxConnections, maxInFlight, idleTimeout, "--"), runtimeDir, security);
    String rootText = RootHashes.text("open", rootHash, rootHashFile);
    ExportSpec export = new ExportSpec(name, description, data, hash, rootText,
        signature.given() ? signature : null, options, corruption.mode(),
        corruption.ignoreZeroBlocks, corruption.checkAtMostOnce, ioClass, fec.given() ? fec : null);
    return new Serving(List.of(export), listening, spec.commandLine().getOut(), spec.commandLine().getErr()).run();
  }

  private boolean given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }
}
