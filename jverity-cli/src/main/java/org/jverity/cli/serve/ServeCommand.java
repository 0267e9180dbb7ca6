package org.jverity.cli.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jverity.cli.Main;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.server.ConfigReload;
import org.jverity.server.Server;
import org.jverity.server.process.SocketActivation;
import org.jverity.server.status.RuntimeDir;

/**
 * {@code jverity serve CONFIG}: several images as named exports of one NBD server, from an
 * nbd-server-style INI file ({@link ServeConfig}), sharing one hash block cache and the hashing
 * pool. Prints one URI per export, then serves until SIGINT or SIGTERM; SIGHUP rereads the config
 * ({@link Server#withReload}).
 */
public final class ServeCommand implements Command {
  /** Larger is not a config file. */
  private static final long MAX_CONFIG_BYTES = 1 << 20;

  Path config;
  Path runtimeDir;
  boolean json;
  final ServiceOptions service = new ServiceOptions();

  public static final Syntax<ServeCommand> SYNTAX =
      Syntax.command(
              "serve",
              "Serve the exports of CONFIG over NBD, every byte verified. CONFIG is an INI file as"
                  + " nbd-server's: a [generic] section with the keys "
                  + String.join(", ", ServeConfig.GENERIC_KEYS)
                  + "; and one [NAME] section per export with the keys "
                  + String.join(", ", ServeConfig.EXPORT_KEYS)
                  + " (root-hash or root-hash-file; the tree options as open's without dashes, hash-algorithm for --hash;"
                  + " flags as key = true; an AVB partition image takes data and avb-key = KEY or none, and no hash,"
                  + " root-hash, tree or FEC keys: its vbmeta, checked against KEY, gives them). Prints one URI per export on stdout, then serves until SIGINT, SIGTERM or"
                  + " jverity close of its last export (exit 0). An export that could serve nothing (wrong root hash,"
                  + " wrong parameters, another image's hash file) refuses the server before it listens, naming it,"
                  + " with verify's diagnosis and exit code. SIGHUP or jverity reload NAME rereads CONFIG: exports added, removed or"
                  + " changed (the connections of those changed or removed end), the others untouched; a config"
                  + " with a mistake, a changed [generic] or an export that cannot open is refused whole, in one"
                  + " line of the log, and the old exports serve on. Under socket activation (LISTEN_PID is"
                  + " jverity's, LISTEN_FDS=1) it accepts on the socket passed as fd 3 and prints no URI; the"
                  + " config's bind, port and socket keys are then ignored, each said in one line.",
              ServeCommand::new)
          .parameter("CONFIG", "The config file.", (c, v) -> c.config = FileName.parse(v))
          .option(
              "--runtime-dir",
              "DIR",
              "Where status sockets go (default: the config's runtime-dir, "
                  + RuntimeDir.DEFAULTS
                  + ").",
              (c, v) -> c.runtimeDir = FileName.parse(v))
          .flag(
              "--json",
              "Print each URI as a JSON event, {\"event\":\"listening\",\"export\":NAME,\"uri\":URI}, one object a"
                  + " line; a failure as {\"ok\":false,\"exitCode\":N,\"error\":...}.",
              c -> c.json = true)
          .include(ServiceOptions.SYNTAX, c -> c.service)
          .example(
              "List the exports of serve.conf (see jverity-serve.conf(5)), nbdinfo starting the server by socket activation:",
              "nbdinfo --list -- [ jverity serve serve.conf ]");

  @Override
  public int run(Io io) throws IOException {
    boolean activated = SocketActivation.requested();
    if (activated) {
      ActivationConflicts.refuseOptions(io.given());
    }
    IniFile ini = listening(readIni(), activated, io.err());
    ServeConfig c = read(ini, io);
    service.check(c.listening());
    return ServerExitCodes.of(
        new Server(
                c.exports(),
                c.listening(),
                service.toService(),
                ExportChecks.INSTANCE,
                Map.of(config, "the config file"),
                io.out(),
                io.err())
            .withProcess(ServerExitCodes.process(io))
            .withJsonEvents(json)
            .withSocketActivation(activated)
            .withReload(
                () -> {
                  ServeConfig again = read(listening(readIni(), activated, null), io);
                  return new ConfigReload.Config(again.listening(), again.exports());
                },
                Main::exitCode)
            .run());
  }

  /** The config as served: under socket activation, without the keys saying where to listen. */
  private static IniFile listening(IniFile ini, boolean activated, PrintWriter notices) {
    return activated ? ActivationConflicts.withoutListeningKeys(ini, notices) : ini;
  }

  private ServeConfig read(IniFile ini, Io io) throws IOException {
    return ServeConfig.read(ini, config.toAbsolutePath().getParent(), runtimeDir, io.err());
  }

  /** The config file's sections; a mistake is one line naming it (exit 3). */
  private IniFile readIni() throws IOException {
    Checks.requireFile(config, "config");
    if (Files.size(config) > MAX_CONFIG_BYTES) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          config
              + ": "
              + Files.size(config)
              + " bytes (expected: a config file, at most "
              + MAX_CONFIG_BYTES
              + ")");
    }
    String text;
    try {
      text = Files.readString(config);
    } catch (MalformedInputException e) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, config + ": not UTF-8 text (expected: a config file)");
    }
    return IniFile.parse(config.toString(), text);
  }
}
