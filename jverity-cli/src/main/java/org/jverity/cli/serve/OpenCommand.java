package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.ddi.DdiOpenOptions;
import org.jverity.cli.remote.RemoteDevices;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.UsageException;
import org.jverity.cli.verity.AvbOptions;
import org.jverity.cli.verity.RootHashes;
import org.jverity.ddi.ServedPartition;
import org.jverity.image.Locations;
import org.jverity.server.Endpoint;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportRoot;
import org.jverity.server.MetricsConfig;
import org.jverity.server.Server;
import org.jverity.server.ServerException;
import org.jverity.server.TlsConfig;
import org.jverity.server.TlsMode;
import org.jverity.server.process.SocketActivation;
import org.jverity.sig.InvalidSignatureException;

/**
 * {@code jverity open DATA NAME HASH ROOT_HASH}: veritysetup open's arguments, but instead of a
 * device-mapper target the image becomes export NAME of a read-only NBD server whose every byte has
 * verified. Prints the URI and serves until SIGINT or SIGTERM.
 */
public final class OpenCommand implements Command {
  String data;
  String name;
  String hash;
  String rootHash;
  Path rootHashFile;

  /** DATA is an AVB partition image: its vbmeta gives HASH, ROOT_HASH, the tree and FEC. */
  final AvbOptions avb = new AvbOptions();

  final DdiOpenOptions ddi = new DdiOpenOptions();

  /** Per export: what a {@code serve} export section takes as keys. */
  final ExportOptions export = new ExportOptions();

  /** Server-wide: what {@code serve}'s {@code [generic]} section takes as keys. */
  final EndpointOptions server = new EndpointOptions();

  /** Command line only, as the parameters and {@code --root-hash-file} are. */
  boolean stdin;

  boolean json;
  final ServiceOptions service = new ServiceOptions();

  public static final Syntax<OpenCommand> SYNTAX =
      Syntax.command(
              "open",
              "Serve DATA over NBD as export NAME, every byte verified against HASH and ROOT_HASH"
                  + " (veritysetup open's arguments). Prints the URI (nbd://... or nbd+unix://...) on stdout, then"
                  + " serves until SIGINT, SIGTERM or jverity close NAME (exit 0). Logs connections and corrupted blocks on stderr."
                  + " Refuses to start, with verify's diagnosis and exit code, when the image could serve nothing (a wrong"
                  + " root hash, wrong parameters, another image's hash file or a damaged top hash block); damaged blocks"
                  + " elsewhere do not stop it. Under socket activation (LISTEN_PID is jverity's, LISTEN_FDS=1:"
                  + " systemd, nbdcopy -- [ CMD ]) it accepts on the socket passed as fd 3 and prints no URI.",
              OpenCommand::new)
          .parameter(
              "DATA",
              "Data image: a file, or a URL (http://, https://, s3://BUCKET/KEY).",
              (c, v) -> c.data = Location.parse(v))
          .parameter(
              "NAME",
              "Export name clients ask for (\"\" for the default export).",
              (c, v) -> c.name = v)
          .optionalParameter(
              "HASH",
              "Hash device (may be DATA with --hash-offset): a file or a URL (none with --avb-key).",
              (c, v) -> c.hash = Location.parse(v))
          .optionalParameter(
              "ROOT_HASH",
              "Root hash in hex, or the image identity (verity1:...) that format prints (or use --root-hash-file).",
              (c, v) -> c.rootHash = v)
          .option(
              "--root-hash-file",
              "FILE",
              "Read the root hash (hex) or identity from FILE.",
              (c, v) -> c.rootHashFile = FileName.parse(v))
          .include(AvbOptions.SYNTAX, c -> c.avb)
          .include(DdiOpenOptions.SYNTAX, c -> c.ddi)
          .include(ExportOptions.CHECKS, c -> c.export)
          .include(EndpointOptions.LISTEN, c -> c.server)
          .flag(
              "--stdin",
              "Serve one connection on stdin/stdout, as nbdkit -s (for nbdfuse --command, inetd); prints no URI.",
              c -> c.stdin = true)
          .include(EndpointOptions.CACHE, c -> c.server)
          .include(ExportOptions.SERVED, c -> c.export)
          .include(EndpointOptions.LIMITS, c -> c.server)
          .include(ExportOptions.FEC, c -> c.export)
          .include(ExportOptions.REMOTE, c -> c.export)
          .include(EndpointOptions.TLS_AND_METRICS, c -> c.server)
          .flag(
              "--json",
              "Print the URI as a JSON event, {\"event\":\"listening\",\"export\":NAME,\"uri\":URI}, one object a line;"
                  + " a failure as {\"ok\":false,\"exitCode\":N,\"error\":...}.",
              c -> c.json = true)
          .include(ServiceOptions.SYNTAX, c -> c.service)
          .example(
              "Copy the verified image over NBD into copy.img, nbdcopy starting the server on a socket of its own (socket activation) and stopping it when done:",
              "nbdcopy -- [ jverity open data.img disk data.hash --root-hash-file root.hex ] copy.img");

  @Override
  public int run(Io io) throws IOException {
    EndpointOptions e = server;
    Checks.requireCacheSize(e.cacheSize);
    export.signature.checkGiven();
    if (stdin
        && (e.socket != null || io.given().contains("--port") || io.given().contains("--bind"))) {
      throw new CliException(
          ExitCode.USAGE, "--stdin serves stdin: give no --socket, --port or --bind");
    }
    boolean activated = SocketActivation.requested();
    if (activated) {
      ActivationConflicts.refuseOptions(io.given());
    }
    if (stdin && json) {
      throw new CliException(
          ExitCode.USAGE, "--stdin gives stdout to the NBD protocol: give no --json");
    }
    if (e.socket != null && (io.given().contains("--port") || io.given().contains("--bind"))) {
      throw new CliException(
          ExitCode.USAGE, "--socket listens on a Unix socket: give no --port or --bind");
    }
    TlsConfig tlsConfig = asOptions(() -> TlsConfig.of(e.tls, e.tlsCertificates, e.tlsVerifyPeer));
    MetricsConfig metrics = asOptions(() -> MetricsConfig.of(e.metricsBind, e.metricsPort));
    if (tlsConfig.mode() == TlsMode.REQUIRE && (e.socket != null || stdin)) {
      throw new CliException(
          ExitCode.USAGE,
          "--tls=require works over TCP only: no client could start TLS over "
              + (stdin ? "--stdin" : "--socket"));
    }
    Endpoint listening =
        new Endpoint(
            e.bind,
            e.port,
            e.socket,
            stdin,
            e.cacheSize,
            asOptions(() -> Endpoint.limits(e.maxConnections, e.maxInFlight, e.idleTimeout)),
            e.runtimeDir,
            tlsConfig,
            metrics);
    boolean disk =
        !avb.given() && hash == null && (Locations.isRemote(data) || DdiExports.isDisk(data));
    if (!disk) {
      ddi.refuseGiven(io.given(), data);
    }
    ExportConfig spec = avb.given() ? avbSpec(io) : disk ? ddiSpec(io) : spec();
    service.check(listening);
    Map<Path, String> inputs = new LinkedHashMap<>();
    if (rootHashFile != null) {
      inputs.put(rootHashFile, "the root hash file");
    }
    return ServerExitCodes.of(
        new Server(
                List.of(spec),
                listening,
                service.toService(),
                ExportChecks.INSTANCE,
                inputs,
                io.out(),
                io.err())
            .withProcess(ServerExitCodes.process(io))
            .withJsonEvents(json)
            .withSocketActivation(activated)
            .run());
  }

  /** The export DATA HASH ROOT_HASH and the options give. */
  private ExportConfig spec() throws IOException {
    if (hash == null) {
      throw new UsageException("missing required parameter 'HASH'");
    }
    String rootText = RootHashes.text("open", rootHash, rootHashFile);
    ExportOptions x = export;
    x.fec.check(); // before listening: a FEC file that cannot serve, or FEC options without one
    String fecDevice = x.fec.given() ? x.fec.device : null;
    // Made only for a URL: a server of local files loads nothing of jverity-remote.
    var remote =
        Locations.anyRemote(data, hash, fecDevice) ? RemoteDevices.options(x.remote) : null;
    return new ExportConfig(
        name,
        x.description,
        data,
        hash,
        new ExportRoot.Given(rootText, x.tree.overrides()),
        ExportChecks.signature(x.signature),
        x.corruption.mode(),
        x.corruption.errorAsCorruption(),
        x.corruption.ignoreZeroBlocks,
        x.corruption.checkAtMostOnce,
        x.ioClass,
        x.fec.given() ? x.fec.source() : null,
        remote,
        null);
  }

  /**
   * The export of the AVB partition image DATA: its vbmeta checked against --avb-key before the
   * server starts, its hashtree descriptor giving the rest ({@link AvbExports}).
   */
  private ExportConfig avbSpec(Io io) throws IOException {
    avb.refuseConflicts(io.given(), hash, rootHash);
    AvbPartition partition = AvbExports.resolve(data, avb.key, export.remote);
    String notice = AvbOptions.unsignedNotice(partition, data, "--avb-key " + AvbOptions.UNSIGNED);
    if (notice != null) {
      io.err().println("jverity: " + notice);
      io.err().flush();
    }
    ExportOptions x = export;
    return AvbExports.config(
        name,
        x.description,
        data,
        partition,
        avb.keyFile(),
        x.corruption.mode(),
        x.corruption.errorAsCorruption(),
        x.corruption.ignoreZeroBlocks,
        x.corruption.checkAtMostOnce,
        x.ioClass,
        Locations.isRemote(data) ? RemoteDevices.options(x.remote) : null);
  }

  /**
   * The export of the DDI DATA's root or usr partition: the table read and the root hash's trust
   * established before the server starts ({@link DdiExports}).
   */
  private ExportConfig ddiSpec(Io io) throws IOException {
    if (rootHash != null) {
      throw new UsageException(
          "DATA is a disk image (a DDI): give its root hash with --root-hash-file, not as ROOT_HASH");
    }
    String given = rootHashFile == null ? null : RootHashes.text("open", null, rootHashFile);
    ServedPartition served;
    try {
      served = DdiExports.resolve(data, ddi, given, export.remote);
    } catch (InvalidSignatureException e) {
      throw new CliException(ExitCode.SIGNATURE_INVALID, e.getMessage());
    }
    if (served == null) { // a URL of no disk image: an ordinary open, HASH missing
      ddi.refuseGiven(io.given(), data);
      return spec();
    }
    ExportOptions x = export;
    return DdiExports.config(
        name,
        x.description,
        data,
        served,
        x.corruption.mode(),
        x.corruption.errorAsCorruption(),
        x.corruption.ignoreZeroBlocks,
        x.corruption.checkAtMostOnce,
        x.ioClass,
        Locations.isRemote(data) ? RemoteDevices.options(x.remote) : null);
  }

  /** Runs a server check, whose message names config keys, naming options instead. */
  private static <T> T asOptions(Supplier<T> check) {
    try {
      return check.get();
    } catch (ServerException e) {
      throw new ServerException(e.reason(), SYNTAX.spelt(e.getMessage(), true));
    }
  }
}
