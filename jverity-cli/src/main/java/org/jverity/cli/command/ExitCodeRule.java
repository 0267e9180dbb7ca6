package org.jverity.cli.command;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * Which exit codes a command line gets: veritysetup's ({@link VeritysetupExitCodes}) or jverity's
 * detailed ones ({@link ExitCode}).
 *
 * <p>A script written for veritysetup must keep its meaning when it runs jverity ({@code [ $? = 2 ]
 * && alarm} alarms on corruption), so veritysetup's own verbs exit with veritysetup's codes by
 * default; jverity's own verbs, which no veritysetup script calls, exit with the detailed ones.
 * {@code --detailed-exit-codes} or {@code JVERITY_EXIT_CODES=detailed} asks for the detailed codes
 * on every verb, {@code --veritysetup-exit-codes} or {@code JVERITY_EXIT_CODES=veritysetup} for
 * veritysetup's on every verb; the option wins over the environment.
 */
public enum ExitCodeRule {
  /** jverity's codes, unchanged. */
  DETAILED,
  /** veritysetup's codes, on every verb. */
  VERITYSETUP,
  /** veritysetup's codes on veritysetup's verbs, jverity's on the others. */
  BY_VERB;

  public static final String ENV = VeritysetupExitCodes.ENV;
  public static final String DETAILED_OPTION = "--detailed-exit-codes";
  public static final String VERITYSETUP_OPTION = "--veritysetup-exit-codes";

  /**
   * veritysetup's verbs, named as veritysetup names them (a verb jverity lacks maps its usage
   * error).
   */
  public static final Set<String> VERITYSETUP_VERBS =
      Set.of("format", "verify", "dump", "open", "close", "status");

  /**
   * The rule {@code options} (the command line's options, before any "--") and {@code env} ask for.
   */
  public static ExitCodeRule of(Map<String, String> env, List<String> options) {
    if (options.contains(DETAILED_OPTION)) {
      return DETAILED;
    }
    if (options.contains(VERITYSETUP_OPTION)) {
      return VERITYSETUP;
    }
    String asked = env.get(ENV);
    if ("detailed".equals(asked)) {
      return DETAILED;
    }
    return VeritysetupExitCodes.ENV_VALUE.equals(asked) ? VERITYSETUP : BY_VERB;
  }

  /**
   * Whether {@code verb} (null when the command line names none) exits with veritysetup's codes.
   */
  boolean veritysetupCodes(String verb) {
    return switch (this) {
      case DETAILED -> false;
      case VERITYSETUP -> true;
      case BY_VERB -> verb != null && VERITYSETUP_VERBS.contains(verb);
    };
  }

  /** The code the process exits with when {@code verb} ended with jverity's {@code code}. */
  public int exitCode(String verb, int code) {
    return exitCode(verb, code, null);
  }

  /**
   * As {@link #exitCode(String, int)}, for a run of {@code command} (null before one was parsed),
   * which may map a code as its veritysetup verb does for the options given ({@link
   * Command#veritysetupExitCode}).
   */
  public int exitCode(String verb, int code, Command command) {
    if (!veritysetupCodes(verb)) {
      return code;
    }
    // veritysetup open never returns 11 or 12 (the kernel restarts or panics, not veritysetup), so
    // passing them through changes no ported script's meaning, and a supervisor restarting a
    // server stopped by --restart-on-corruption needs them. Asked for explicitly, every code maps.
    if (this == BY_VERB
        && "open".equals(verb)
        && (code == ExitCode.RESTART || code == ExitCode.PANIC)) {
      return code;
    }
    return command == null ? VeritysetupExitCodes.of(code) : command.veritysetupExitCode(code);
  }

  /** What {@code jverity --help} says of the exit codes: which rule each command follows. */
  public static String overview() {
    return "Exit codes: veritysetup's on veritysetup's commands ("
        + String.join(", ", new TreeSet<>(VERITYSETUP_VERBS))
        + "), jverity's detailed ones on the others;"
        + " each command's help lists its own.";
  }

  /**
   * The sentence {@code --help} ends with for {@code verb} by default: each code it exits with and
   * what it means, from {@link ExitCode#meaning} and {@link VeritysetupExitCodes#of}.
   */
  public static String helpFor(String verb) {
    if (!BY_VERB.veritysetupCodes(verb)) {
      StringBuilder b =
          new StringBuilder("Exit codes (jverity's; --veritysetup-exit-codes for veritysetup's):");
      for (int code : codes()) {
        b.append(code == ExitCode.OK ? " " : "; ")
            .append(code)
            .append(' ')
            .append(ExitCode.meaning(code));
      }
      return b.append('.').toString();
    }
    StringBuilder b =
        new StringBuilder("Exit codes (veritysetup's; --detailed-exit-codes for jverity's):");
    Map<Integer, StringBuilder> byCode = new TreeMap<>();
    for (int code : codes()) {
      int shown = BY_VERB.exitCode(verb, code);
      StringBuilder meanings = byCode.get(shown);
      if (meanings == null) {
        byCode.put(shown, new StringBuilder(ExitCode.meaning(code)));
      } else {
        meanings.append(", ").append(ExitCode.meaning(code));
      }
    }
    String sep = " ";
    for (Map.Entry<Integer, StringBuilder> e : byCode.entrySet()) {
      b.append(sep).append(e.getKey()).append(' ').append(e.getValue());
      sep = "; ";
    }
    return b.append('.').toString();
  }

  /** Every code {@link ExitCode} defines, in order: those from 0 with a meaning, then 141. */
  private static int[] codes() {
    return IntStream.concat(
            IntStream.iterate(ExitCode.OK, c -> !ExitCode.meaning(c).equals("unknown"), c -> c + 1),
            IntStream.of(ExitCode.OUTPUT_CLOSED))
        .toArray();
  }
}
