package org.jverity.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbSigningException;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.tool.PartitionTooSmallException;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.ExitCodeRule;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.JsonOutput;
import org.jverity.cli.command.Stdout;
import org.jverity.cli.remote.RemoteDevices;
import org.jverity.cli.serve.ServerExitCodes;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.Usage;
import org.jverity.cli.syntax.UsageException;
import org.jverity.ddi.DdiFormatException;
import org.jverity.ddi.gpt.GptFormatException;
import org.jverity.fec.FecEncoder;
import org.jverity.format.IdentityMismatchException;
import org.jverity.format.SuperblockException;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.BlockHasher;
import org.jverity.hashes.VeritysetupHashes;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.ExitHook;
import org.jverity.server.ServerException;
import org.jverity.server.process.CaptiveRun;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.verify.CorruptBlockException;

/**
 * The jverity command line: finds the command among the arguments (global options may come before
 * it, as veritysetup's), parses the rest with the command's {@link Syntax}, runs it, and turns a
 * failure into one line on stderr and its {@link ExitCode}.
 */
public final class Main {
  private Main() {}

  /** What {@code jverity --help} says jverity is. */
  static final String SUMMARY =
      "dm-verity hash trees, compatible with veritysetup (and fs-verity digests,"
          + " compatible with fsverity).";

  public static void main(String[] args) {
    QuietLibraryLogs.whenLoggingStarts();
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    PrintWriter err =
        new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    int code;
    try {
      code = run(out, err, System.getenv(), true, args);
    } catch (Throwable e) { // an Error (out of memory): still one line, no stack trace
      err.println("jverity: internal error: " + e);
      code = ExitCode.INTERNAL;
    }
    out.flush();
    err.flush();
    exit(code, args);
  }

  /**
   * Commands whose process may end at once: they start no server (whose hooks stop its exports) and
   * write nothing after their output; what they leave half-made is undone by an {@link ExitHook},
   * so a halt waits for none to be live. A group of subcommands says so of all of them ({@link
   * CommandGroup#endsAtOnce}).
   */
  private static final Set<String> ENDS_AT_ONCE =
      Stream.concat(
              Stream.of(
                  "format",
                  "verify",
                  "dump",
                  "read",
                  "status",
                  "close",
                  "reload",
                  "digest",
                  "cat",
                  "sign",
                  "verify-sig"),
              Commands.GROUPS.stream().filter(CommandGroup::endsAtOnce).map(CommandGroup::name))
          .collect(Collectors.toUnmodifiableSet());

  static final String HALT_PROPERTY = "jverity.halt";

  /**
   * Ends the process. {@code Runtime.exit} asks a System.Logger whether to log the exit, and
   * finding out starts the logging backend, whose search for a logger finder opens the 12 MB jar:
   * ~30 ms of a 115 ms {@code dump}. A one-shot command, its output flushed, halts instead when its
   * launcher says nothing else needs the exit ({@code -Djverity.halt=true}: {@code bin/jverity}
   * gives it unless JVM options were added, which may start a recording or an agent that writes at
   * exit); the others (a server's hooks stop its exports) exit.
   */
  private static void exit(int code, String[] args) {
    int at = commandIndex(List.of(args));
    if (Boolean.getBoolean(HALT_PROPERTY)
        && (at < 0 || ENDS_AT_ONCE.contains(args[at]))
        && ExitHook.none()) {
      Runtime.getRuntime().halt(code);
    }
    System.exit(code);
  }

  /**
   * Runs a command line with the given output streams and returns its exit code; a failure prints
   * one line on {@code err}, never a stack trace. The environment is the process's.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    return run(out, err, System.getenv(), args);
  }

  /** As {@link #run(PrintWriter, PrintWriter, String...)}, with {@code env} as the environment. */
  static int run(PrintWriter out, PrintWriter err, Map<String, String> env, String... args) {
    return run(out, err, env, false, args);
  }

  /**
   * {@code ownsProcess}: whether the run is the process's {@code main}, so that a server may hook
   * its signals and end the JVM ({@link Io#ownsProcess}); a run inside another program's JVM (a
   * test's) hooks nothing.
   */
  private static int run(
      PrintWriter out,
      PrintWriter err,
      Map<String, String> env,
      boolean ownsProcess,
      String... args) {
    // The command line reports corruption itself, one line each; the library's log stays quiet.
    QuietLibraryLogs.now();
    VeritysetupHashes
        .register(); // BLAKE2, SM3 and the rest, by name only: nothing is loaded until one hashes
    List<String> all = spelledOut(List.of(args));
    int at = commandIndex(all);
    String verb = at < 0 ? null : all.get(at);
    // Looked for before parsing, so that a command line that does not parse maps its code too.
    ExitCodeRule rule =
        ExitCodeRule.of(env, all.subList(0, all.contains("--") ? all.indexOf("--") : all.size()));
    // --run's command's own status is passed on as it is: it is not jverity's code to translate.
    // The command, once parsed, may map a code as its veritysetup verb does for its options.
    AtomicReference<Command> parsed = new AtomicReference<>();
    IntUnaryOperator returned =
        code -> CaptiveRun.passedOn(code) ? code : rule.exitCode(verb, code, parsed.get());
    JsonOutput json = JsonOutput.of(all, out, err);
    int code =
        returned.applyAsInt(
            dispatch(
                out,
                json == null ? err : json.err(),
                all,
                at,
                returned,
                parsed,
                json,
                ownsProcess));
    out.flush();
    err.flush();
    return json == null
        ? code
        : json.finish(code); // after the mapping: the code the process exits with
  }

  private static int dispatch(
      PrintWriter out,
      PrintWriter err,
      List<String> args,
      int at,
      IntUnaryOperator returned,
      AtomicReference<Command> parsed,
      JsonOutput json,
      boolean ownsProcess) {
    Named named = named(args, at);
    Syntax<? extends Command> command = named.syntax();
    int words = named.words();
    CommandGroup group = Commands.group(command);
    if (group != null) { // no subcommand it knows
      String sub = at + 1 < args.size() ? args.get(at + 1) : null;
      if (sub != null && !sub.startsWith("-")) {
        err.println("jverity: " + group.unknown(sub));
        return ExitCode.USAGE;
      } else if (flagged(args, "-?", "--help")) {
        out.print(
            Usage.subcommandHelp(
                group.syntax(),
                group.subcommands().all(),
                group.spelling(),
                GlobalOptions.SYNTAX,
                ExitCodeRule.helpFor(group.name())));
        return ExitCode.OK;
      } else if (flagged(args, "--usage")) {
        out.print(Usage.subcommandUsage(group.syntax()));
        return ExitCode.OK;
      }
    }
    if (flagged(args, "-V", "--version")) {
      out.println("jverity " + Version.get());
      return ExitCode.OK;
    }
    if (at >= 0 && command == null) {
      err.println(
          "jverity: unknown command '"
              + args.get(at)
              + "' (commands: "
              + String.join(", ", Commands.NAMES)
              + "; see 'jverity --help')");
      return ExitCode.USAGE;
    }
    if (flagged(args, "-?", "--help")) {
      out.print(
          command == null
              ? Usage.help(SUMMARY, Commands.all(), GlobalOptions.SYNTAX, ExitCodeRule.overview())
              : Usage.help(command, GlobalOptions.SYNTAX, ExitCodeRule.helpFor(command.name())));
      return ExitCode.OK;
    }
    if (flagged(args, "--usage")) {
      out.print(
          command == null
              ? "Usage: jverity [OPTION...] COMMAND [ARGUMENTS]\n       COMMAND: "
                  + String.join(" | ", Commands.NAMES)
                  + "\n"
              : Usage.brief(command));
      return ExitCode.OK;
    }
    if (command == null) { // as veritysetup: "Argument <action> missing.", then what there is
      err.println("jverity: missing command");
      err.print(Usage.commandList(Commands.all()));
      err.println(
          "See 'jverity --help' for the global options, 'jverity COMMAND --help' for a command's.");
      return ExitCode.USAGE;
    }
    List<String> rest = new ArrayList<>(args);
    rest.subList(at, at + words).clear();
    return execute(command, rest, out, err, args, returned, parsed, json, ownsProcess);
  }

  /**
   * Runs the command; {@code returned} is the exit code the process will give for jverity's (for
   * -v).
   */
  private static <C extends Command> int execute(
      Syntax<C> syntax,
      List<String> args,
      PrintWriter out,
      PrintWriter err,
      List<String> commandLine,
      IntUnaryOperator returned,
      AtomicReference<Command> ran,
      JsonOutput json,
      boolean ownsProcess) {
    GlobalOptions global = new GlobalOptions();
    Io io = null;
    int code;
    try {
      Syntax.Parsed<C> parsed = syntax.parse(args, GlobalOptions.SYNTAX, global);
      io = new Io(out, err, parsed.given(), global.debug, json, ownsProcess);
      if (io
          .debug()) { // Version.get() opens the jar, which a run from the AOT cache otherwise never
        // does
        io.debug(
            "jverity "
                + Version.get()
                + " processing \"jverity "
                + String.join(" ", commandLine)
                + "\"");
        io.debug("Running command " + syntax.name() + ".");
      }
      ran.set(parsed.target());
      code = parsed.target().run(io);
    } catch (UsageException e) {
      err.println("jverity: " + e.getMessage() + " (try 'jverity " + syntax.name() + " --help')");
      code = ExitCode.USAGE;
    } catch (BadValue e) {
      err.println("jverity: " + e.getMessage());
      code = ExitCode.of(e);
    } catch (Exception e) {
      code = report(e, err, global.debug);
    }
    out.flush();
    int exit = returned.applyAsInt(code);
    if (io != null) {
      BlockHasher.bulkHashingNote().ifPresent(io::debug);
      FecEncoder.parityNote().ifPresent(io::debug);
      io.debug("Exit code " + exit + " (" + ExitCode.meaning(code) + ").");
    }
    if (global.verbose) { // as veritysetup -v
      if (code == ExitCode.OK) {
        (json == null ? out : err).println("Command successful."); // --json: stdout holds JSON only
      } else { // the code the process exits with; what happened in jverity's words
        err.println("Command failed with code " + exit + " (" + ExitCode.meaning(code) + ").");
      }
    }
    err.flush();
    return code;
  }

  /**
   * Where the command's name is: the first argument that is neither an option nor the value of one.
   * Global options may come first ({@code jverity --hash sha512 format ...}); whether an option
   * takes a value is the same in every command that has it ({@code CommandsTest}). -1 when there is
   * none.
   */
  static int commandIndex(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        return i + 1 < args.size() ? i + 1 : -1;
      }
      if (!a.startsWith("-") || a.equals("-")) {
        return i;
      }
      boolean attached = a.startsWith("--") ? a.contains("=") : a.length() > 2;
      if (!attached && Commands.optionTakesValue(a)) {
        i++; // its value
      }
    }
    return -1;
  }

  /**
   * A command's syntax and how many words name it: one, or two for a subcommand ({@code avb
   * info_image}).
   */
  private record Named(Syntax<? extends Command> syntax, int words) {}

  /**
   * The command named at {@code at} (null when none, or not one of ours), or, when it is a group's
   * ({@code avb}), the subcommand after it when the next word names one: what the dispatch runs and
   * the abbreviations expand.
   */
  private static Named named(List<String> args, int at) {
    Syntax<? extends Command> command = at < 0 ? null : Commands.named(args.get(at));
    CommandGroup group = Commands.group(command);
    if (group != null && at + 1 < args.size()) {
      Syntax<? extends Command> sub = group.subcommands().named(args.get(at + 1));
      if (sub != null) {
        return new Named(sub, 2);
      }
    }
    return new Named(command, 1);
  }

  /**
   * The command line with the command's abbreviated options spelt in full ({@link
   * Syntax#spelledOut}): what is looked for before parsing (--help, --json, the exit-code options)
   * is then what the parser reads. The command's name, and any subcommand's, stay where they are.
   */
  static List<String> spelledOut(List<String> args) {
    int at = commandIndex(args);
    Named named = named(args, at);
    Syntax<? extends Command> command = named.syntax();
    int words = named.words();
    if (command == null || !command.abbreviated()) {
      return args;
    }
    List<String> rest = new ArrayList<>(args);
    List<String> names = List.copyOf(rest.subList(at, at + words));
    rest.subList(at, at + words).clear();
    List<String> spelt = new ArrayList<>(command.spelledOut(rest, GlobalOptions.SYNTAX));
    spelt.addAll(at, names);
    return List.copyOf(spelt);
  }

  /** Whether one of {@code names} is among the options (before any "--"). */
  private static boolean flagged(List<String> args, String... names) {
    for (String a : args) {
      if (a.equals("--")) {
        return false;
      }
      for (String n : names) {
        if (a.equals(n)) {
          return true;
        }
      }
    }
    return false;
  }

  private static int report(Exception e, PrintWriter err, boolean debug) {
    int code = exitCode(e);
    if (e instanceof Stdout.Closed && !debug) {
      return code; // as cat under head: the reader has what it wanted, nothing to say
    }
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
    if (debug) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      trace.toString().lines().forEach(l -> err.println("# " + l));
    }
    err.flush();
    return code;
  }

  /**
   * Whether {@code e} or one of its causes is jverity-remote's, told by its class's name: asking
   * with {@code instanceof} would load the remote module's classes on every failure.
   */
  private static boolean fromRemote(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getClass().getName().startsWith("org.jverity.remote.")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The exit code of a command that failed with {@code e}: also that of a reload {@code serve}
   * refuses for the same mistake ({@code jverity reload}).
   */
  public static int exitCode(Throwable e) {
    if (fromRemote(e)) { // a remote device's failure, or its credentials refused
      int code = RemoteDevices.exitCode(e, ExitCode.ORIGIN_DENIED, ExitCode.IO_ERROR);
      if (code >= 0) {
        return code;
      }
    }
    return switch (e) {
      case CliException c -> c.exitCode();
      case ServerException s -> ServerExitCodes.of(s.reason());
      case Stdout.Closed c -> ExitCode.OUTPUT_CLOSED;
      case InvalidSignatureException s -> ExitCode.SIGNATURE_INVALID;
      case UnsupportedHashAlgorithmException u -> ExitCode.UNSUPPORTED_HASH;
      case VerityParameterException v -> ExitCode.INVALID_PARAMETER;
      case SuperblockException s -> ExitCode.BAD_SUPERBLOCK;
      case IdentityMismatchException m -> ExitCode.SUPERBLOCK_MISMATCH;
      case DeviceTooSmallException d -> ExitCode.DEVICE_TOO_SMALL;
      case PartitionTooSmallException p -> ExitCode.DEVICE_TOO_SMALL;
      case AvbSigningException s -> ExitCode.SIGNATURE_INVALID;
      case AvbFormatException f -> ExitCode.AVB_INVALID;
      case AvbVerificationException v -> ExitCode.AVB_REFUSED;
      case GptFormatException g -> ExitCode.DDI_INVALID;
      case DdiFormatException d -> ExitCode.DDI_INVALID;
      case CorruptBlockException c -> ExitCode.CORRUPTION;
      case EOFException eof -> ExitCode.DEVICE_TOO_SMALL;
      case FileSystemException f -> ExitCode.IO_ERROR;
      case IOException io -> ExitCode.IO_ERROR;
      case UncheckedIOException u -> exitCode(u.getCause());
      default -> ExitCode.INTERNAL;
    };
  }
}
