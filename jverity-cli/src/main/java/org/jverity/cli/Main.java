package org.jverity.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.jverity.format.IdentityMismatchException;
import org.jverity.format.SuperblockException;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.verify.CorruptBlockException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "jverity",
    description = "dm-verity hash trees, compatible with veritysetup.",
    versionProvider = Main.Version.class)
public final class Main implements Runnable {
  @Option(names = {"-?", "--help"}, usageHelp = true, description = "Show this help.")
  boolean help;

  @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version.")
  boolean version;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, java.nio.charset.StandardCharsets.UTF_8), true);
    PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, java.nio.charset.StandardCharsets.UTF_8), true);
    int code;
    try {
      code = run(out, err, args);
    } catch (Throwable e) { // an Error escapes picocli's handler; still one line, no stack trace
      err.println("jverity: internal error: " + e);
      code = ExitCode.INTERNAL;
    }
    out.flush();
    err.flush();
    System.exit(code);
  }

  /**
   * The library's loggers' parent. Held here: java.util.logging keeps loggers weakly, and a level
   * set on one that was collected is lost (a long demo then printed the library's warnings).
   */
  private static final java.util.logging.Logger LIBRARY_LOG = java.util.logging.Logger.getLogger("org.jverity");

  /**
   * Runs a command line with the given output streams and returns its exit code; a failure prints
   * one line on {@code err}, never a stack trace.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    // The command line reports corruption itself, one line each; the library's log stays quiet.
    LIBRARY_LOG.setLevel(java.util.logging.Level.OFF);
    VeritysetupHashes.register(); // BLAKE2, SM3 and the rest, by name only: nothing is loaded until one hashes
    CommandLine cli = new CommandLine(new Main());
    // picocli reflects over every option of every command it is given, which is most of the
    // start-up time; a command line naming one command only needs that one.
    Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
    commands.put("format", FormatCommand::new);
    commands.put("verify", VerifyCommand::new);
    commands.put("dump", DumpCommand::new);
    commands.put("read", ReadCommand::new);
    commands.put("repair", RepairCommand::new);
    commands.put("open", OpenCommand::new);
    commands.put("serve", ServeCommand::new);
    commands.put("status", StatusCommand::new);
    commands.put("demo", DemoCommand::new);
    commands.put("digest", DigestCommand::new);
    commands.put("cat", CatCommand::new);
    commands.put("sign", SignCommand::new);
    commands.put("verify-sig", VerifySigCommand::new);
    if (args.length > 0 && commands.containsKey(args[0])) {
      cli.addSubcommand(args[0], commands.get(args[0]).get());
    } else {
      commands.forEach((name, command) -> cli.addSubcommand(name, command.get()));
    }
    cli.registerConverter(java.nio.file.Path.class, new FileName()); // after the subcommands: reaches them
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> report(e, cmd.getErr()));
    cli.setParameterExceptionHandler((e, args2) -> {
      PrintWriter w = e.getCommandLine().getErr();
      if (e.getCause() instanceof BadValue b) { // a value we refused: "--length: 1X (expected: ...)"
        w.println("jverity: " + name(e.getArgSpec()) + ": " + (e.getValue().isEmpty() ? "\"\"" : e.getValue())
            + " (expected: " + b.expected() + ")");
        w.flush();
        return ExitCode.INVALID_PARAMETER;
      }
      String help = "jverity " + (e.getCommandLine() == cli ? "" : e.getCommandLine().getCommandName() + " ") + "--help";
      w.println("jverity: " + String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ")
          + " (try '" + help + "')");
      w.flush();
      return ExitCode.USAGE;
    });
    for (CommandLine sub : cli.getSubcommands().values()) {
      sub.getCommandSpec().addOption(CommandLine.Model.OptionSpec.builder("-?", "--help")
          .usageHelp(true).description("Show this help.").build());
    }
    return cli.execute(args);
  }

  /** An option's longest name, or a positional parameter's label. */
  private static String name(CommandLine.Model.ArgSpec arg) {
    return arg instanceof CommandLine.Model.OptionSpec o ? o.longestName() : arg.paramLabel();
  }

  private static int report(Exception e, PrintWriter err) {
    int code = exitCode(e);
    Throwable shown = e instanceof UncheckedIOException u ? u.getCause() : e;
    String message = shown.getMessage() == null ? shown.toString() : shown.getMessage();
    if (shown instanceof NoSuchFileException f) {
      message = f.getFile() + ": no such file";
    } else if (shown instanceof AccessDeniedException f) {
      message = f.getFile() + ": permission denied";
    } else if (code == ExitCode.INTERNAL) {
      message = "internal error: " + shown;
    }
    err.println("jverity: " + message);
    err.flush();
    return code;
  }

  static int exitCode(Throwable e) {
    return switch (e) {
      case CliException c -> c.exitCode();
      case org.jverity.sig.InvalidSignatureException s -> ExitCode.SIGNATURE_INVALID;
      case UnsupportedHashAlgorithmException u -> ExitCode.UNSUPPORTED_HASH;
      case VerityParameterException v -> ExitCode.INVALID_PARAMETER;
      case SuperblockException s -> ExitCode.BAD_SUPERBLOCK;
      case IdentityMismatchException m -> ExitCode.SUPERBLOCK_MISMATCH;
      case DeviceTooSmallException d -> ExitCode.DEVICE_TOO_SMALL;
      case CorruptBlockException c -> ExitCode.CORRUPTION;
      case EOFException eof -> ExitCode.DEVICE_TOO_SMALL;
      case FileSystemException f -> ExitCode.IO_ERROR;
      case IOException io -> ExitCode.IO_ERROR;
      case UncheckedIOException u -> exitCode(u.getCause());
      default -> ExitCode.INTERNAL;
    };
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"jverity " + (v == null ? "(development build)" : v)};
    }
  }
}
