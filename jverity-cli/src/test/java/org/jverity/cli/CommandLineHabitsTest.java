package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.VeritysetupExitCodes;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.Usage;
import org.jverity.cli.syntax.UsageException;

/**
 * veritysetup's command-line habits, each run with jverity and, where veritysetup has the habit,
 * with veritysetup on the same files: global options before the command, -v, --debug, --batch-mode
 * and --usage on every command, a repeated option meaning the last one, no arguments or an unknown
 * command, --version.
 */
class CommandLineHabitsTest {
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";

  @TempDir Path dir;
  Path data;

  @BeforeEach
  void image() throws IOException {
    byte[] bytes = new byte[64 * 4096];
    new SplittableRandom(11).nextBytes(bytes);
    data = Files.write(dir.resolve("data.img"), bytes);
  }

  private String p(String name) {
    return dir.resolve(name).toString();
  }

  /** Formats data.img into {@code hash} with jverity and returns the root hash. */
  private String format(String hash, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of("format", data.toString(), p(hash), "--salt", SALT, "--uuid", UUID));
    args.addAll(List.of(options));
    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s", r).isZero();
    return r.headerField("Root hash");
  }

  @Test
  void globalOptionsMayComeBeforeTheCommand() throws IOException {
    ToolRun before =
        Jverity.run(
            "--hash",
            "sha512",
            "-s",
            SALT,
            "--uuid=" + UUID,
            "--data-block-size",
            "1024",
            "format",
            data.toString(),
            p("before.hash"));
    ToolRun after =
        Jverity.run(
            "format",
            data.toString(),
            p("after.hash"),
            "--hash",
            "sha512",
            "-s",
            SALT,
            "--uuid=" + UUID,
            "--data-block-size",
            "1024");
    ToolRun oracle =
        VeritysetupOracle.run(
            "--hash",
            "sha512",
            "-s",
            SALT,
            "--uuid=" + UUID,
            "--data-block-size",
            "1024",
            "format",
            data.toString(),
            p("oracle.hash"));
    assertThat(before.exitCode()).as("%s", before).isZero();
    assertThat(oracle.exitCode()).as("%s", oracle).isZero();
    assertThat(before.headerField("Hash algorithm")).isEqualTo("sha512");
    assertThat(before.headerField("Root hash"))
        .isEqualTo(after.headerField("Root hash"))
        .isEqualTo(oracle.headerField("Root hash"));
    assertThat(Files.readAllBytes(Path.of(p("before.hash"))))
        .isEqualTo(Files.readAllBytes(Path.of(p("oracle.hash"))));
  }

  @Test
  void verboseSaysCommandSuccessfulAsVeritysetupDoes() {
    String root = format("v.hash");
    ToolRun jv = Jverity.run("-v", "verify", data.toString(), p("v.hash"), root);
    ToolRun vs = VeritysetupOracle.run("-v", "verify", data.toString(), p("v.hash"), root);
    assertThat(vs.stdoutLines()).as("%s", vs).contains("Command successful.");
    assertThat(jv.exitCode()).as("%s", jv).isZero();
    assertThat(jv.stdoutLines()).as("%s", jv).containsExactly("Command successful.");
    ToolRun after = Jverity.run("dump", p("v.hash"), "--verbose");
    assertThat(after.stdoutLines()).last().isEqualTo("Command successful.");
  }

  @Test
  void verboseNamesTheFailure() {
    String root = format("f.hash");
    ToolRun r =
        Jverity.run(
            "verify",
            "-v",
            data.toString(),
            p("f.hash"),
            root.replace(root.charAt(0), root.charAt(0) == '0' ? '1' : '0'));
    assertThat(r.exitCode()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(r.stderrLines()).last().isEqualTo("Command failed with code 7 (wrong root hash).");
  }

  @Test
  void debugPrintsDiagnosticLinesOnStderr() {
    format("d.hash");
    ToolRun r = Jverity.run("--debug", "dump", p("d.hash"));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.stdoutLines().getFirst()).startsWith("VERITY header information for ");
    assertThat(r.stderrLines())
        .isNotEmpty()
        .allMatch(l -> l.startsWith("# "))
        .anyMatch(l -> l.contains("Running command dump."));
    ToolRun failed = Jverity.run("dump", p("nope.hash"), "--debug");
    assertThat(failed.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(failed.stderrLines()).filteredOn(l -> !l.startsWith("# ")).hasSize(1);
  }

  static List<String> commands() {
    return Commands.NAMES;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void everyCommandTakesTheGlobalOptions(String command) {
    ToolRun usage = Jverity.run(command, "--usage");
    assertThat(usage.exitCode()).as("%s", usage).isZero();
    assertThat(usage.stdout()).startsWith("Usage: jverity " + command + " ");
    ToolRun help = Jverity.run(command, "--help");
    assertThat(help.exitCode()).as("%s", help).isZero();
    assertThat(help.stdout())
        .contains(
            "-v, --verbose",
            "--debug",
            "--batch-mode",
            "--usage",
            "-?, --help",
            "--veritysetup-exit-codes",
            "--detailed-exit-codes");
    assertThat(help.stdout().lines())
        .allMatch(l -> l.length() <= Usage.WIDTH || !l.contains(" "), "80 columns");
    // Accepted by the parser on every command (parsed only: demo would run, status would wait).
    GlobalOptions global = new GlobalOptions();
    try {
      Commands.named(command)
          .parse(List.of("--batch-mode", "-v", "--debug"), GlobalOptions.SYNTAX, global);
    } catch (UsageException e) {
      assertThat(e.getMessage()).as(command).startsWith("missing required");
    }
    assertThat(global.verbose && global.debug).as(command).isTrue();
  }

  @Test
  void batchModeIsAccepted() {
    format("b.hash");
    ToolRun r = Jverity.run("--batch-mode", "dump", p("b.hash"));
    assertThat(r.exitCode()).as("%s", r).isZero();
  }

  @Test
  void aRepeatedOptionMeansTheLastOne() {
    ToolRun jv =
        Jverity.run(
            "format",
            data.toString(),
            p("r.hash"),
            "--hash",
            "sha1",
            "--salt",
            "00",
            "--uuid",
            UUID,
            "--hash",
            "sha256",
            "--salt",
            SALT);
    ToolRun vs =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            p("r-vs.hash"),
            "--hash",
            "sha1",
            "--salt",
            "00",
            "--uuid",
            UUID,
            "--hash",
            "sha256",
            "--salt",
            SALT);
    assertThat(jv.exitCode()).as("%s", jv).isZero();
    assertThat(vs.exitCode()).as("%s", vs).isZero();
    assertThat(jv.headerField("Hash algorithm"))
        .isEqualTo(vs.headerField("Hash algorithm"))
        .isEqualTo("sha256");
    assertThat(jv.headerField("Salt")).isEqualTo(vs.headerField("Salt")).isEqualTo(SALT);
    assertThat(jv.headerField("Root hash")).isEqualTo(vs.headerField("Root hash"));
  }

  @Test
  void noArgumentsListsTheCommands() {
    ToolRun jv = Jverity.run();
    ToolRun vs = VeritysetupOracle.run();
    assertThat(vs.exitCode()).as("veritysetup fails too: %s", vs).isNotZero();
    assertThat(jv.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(jv.stdout()).isEmpty();
    assertThat(jv.stderrLines().getFirst()).isEqualTo("jverity: missing command");
    assertThat(jv.stderr())
        .contains(Commands.NAMES.stream().map(n -> "\n  " + n + " ").toArray(String[]::new));
  }

  @Test
  void anUnknownCommandIsOneLine() {
    ToolRun jv = Jverity.run("frobnicate", "x");
    ToolRun vs = VeritysetupOracle.run("frobnicate", "x");
    assertThat(vs.exitCode()).as("veritysetup fails too: %s", vs).isNotZero();
    assertThat(jv.exitCode()).isEqualTo(ExitCode.USAGE);
    BadInputTest.assertOneErrorLine(jv);
    assertThat(jv.stderr()).contains("unknown command 'frobnicate'", "format, verify, dump");
  }

  @Test
  void helpListsTheCommandsWithoutBuildingThemUp() {
    ToolRun r = Jverity.run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout()).startsWith("Usage: jverity [OPTION...] COMMAND");
    for (String n : Commands.NAMES) {
      assertThat(r.stdout()).contains("\n  " + n + " ");
    }
  }

  @Test
  void versionIsTheBuildsVersion() {
    String version = System.getProperty("jverity.version");
    assertThat(version).as("surefire passes ${project.version}").isNotBlank();
    String commit = System.getProperty("jverity.commit", "");
    String expected =
        "jverity "
            + version
            + (commit.isEmpty() ? " (unknown commit)" : " (commit " + commit + ")")
            + "\n";
    for (List<String> args :
        List.of(List.of("--version"), List.of("-V"), List.of("dump", "--version"))) {
      ToolRun r = Jverity.run(args);
      assertThat(r.exitCode()).as("%s", r).isZero();
      assertThat(r.stdout()).isEqualTo(expected);
    }
  }

  @Test
  void checkingCommandsDescribeTheirOwnOptions() {
    for (String command : List.of("verify", "read", "repair", "open")) {
      String help = Jverity.run(command, "--help").stdout().replaceAll("\\s+", " "); // unwrapped
      assertThat(help)
          .as(command)
          .doesNotContainIgnoringCase("format default")
          .doesNotContain("Also write")
          .doesNotContain("written to the superblock")
          .contains("the superblock's");
    }
    String format = Jverity.run("format", "--help").stdout().replaceAll("\\s+", " ");
    assertThat(format)
        .contains("UUID written to the superblock (default: random)")
        .doesNotContain("the superblock's");
  }

  /**
   * Whether an option takes a value must not depend on the command: global options before it rely
   * on that.
   */
  @Test
  void anOptionTakesAValueInEveryCommandOrInNone() {
    Map<String, Boolean> seen = new java.util.HashMap<>();
    for (String n : Commands.NAMES) {
      for (Syntax.Option<?> o : Commands.named(n).options()) {
        for (String name : o.names()) {
          Boolean before = seen.putIfAbsent(name, o.takesValue());
          assertThat(before == null || before == o.takesValue()).as("%s in %s", name, n).isTrue();
          assertThat(GlobalOptions.SYNTAX.option(name))
              .as("%s in %s shadows a global option", name, n)
              .isNull();
        }
      }
    }
  }

  // ---- veritysetup's exit codes ----

  /** One failing (or not) command line, run by both tools on the same files. */
  record Case(String name, int jverity, List<String> args) {
    @Override
    public String toString() {
      return name;
    }
  }

  private List<Case> cases() throws IOException {
    String root = format("x.hash");
    Path corrupt = Files.copy(data, dir.resolve("corrupt.img"));
    byte[] b = Files.readAllBytes(corrupt);
    b[5000] ^= 1;
    Files.write(corrupt, b);
    String wrongRoot = (root.charAt(0) == '0' ? "1" : "0") + root.substring(1);
    // A tree without superblock and another salt: no block matches.
    ToolRun ns =
        Jverity.run("format", data.toString(), p("ns.hash"), "--no-superblock", "--salt", "00");
    String nsRoot = ns.headerField("Root hash");
    return List.of(
        new Case("success", ExitCode.OK, List.of("verify", data.toString(), p("x.hash"), root)),
        new Case(
            "wrong root hash",
            ExitCode.ROOT_HASH_MISMATCH,
            List.of("verify", data.toString(), p("x.hash"), wrongRoot)),
        new Case(
            "corrupted data block",
            ExitCode.CORRUPTION,
            List.of("verify", corrupt.toString(), p("x.hash"), root)),
        new Case(
            "missing data file",
            ExitCode.IO_ERROR,
            List.of("verify", p("nope.img"), p("x.hash"), root)),
        new Case(
            "unknown option",
            ExitCode.USAGE,
            List.of("verify", data.toString(), p("x.hash"), root, "--bogus")),
        new Case("no superblock", ExitCode.BAD_SUPERBLOCK, List.of("dump", data.toString())),
        new Case(
            "wrong salt",
            ExitCode.WRONG_PARAMETERS,
            List.of(
                "verify",
                "--no-superblock",
                "--salt",
                "01",
                data.toString(),
                p("ns.hash"),
                nsRoot)));
  }

  @Test
  void veritysetupExitCodesAreVeritysetups() throws IOException {
    for (Case c : cases()) {
      ToolRun vs = VeritysetupOracle.run(c.args());
      ToolRun own = Jverity.run(c.args());
      List<String> switched = new ArrayList<>(List.of("--veritysetup-exit-codes"));
      switched.addAll(c.args());
      ToolRun bySwitch = Jverity.run(switched);
      int byEnv = run(Map.of(VeritysetupExitCodes.ENV, VeritysetupExitCodes.ENV_VALUE), c.args());
      assertThat(own.exitCode()).as("%s: jverity's own code\n%s", c, own).isEqualTo(c.jverity());
      assertThat(bySwitch.exitCode())
          .as("%s: --veritysetup-exit-codes\n%s\nveritysetup: %s", c, bySwitch, vs)
          .isEqualTo(vs.exitCode());
      assertThat(byEnv)
          .as("%s: JVERITY_EXIT_CODES=veritysetup\nveritysetup: %s", c, vs)
          .isEqualTo(vs.exitCode());
    }
    assertThat(run(Map.of(VeritysetupExitCodes.ENV, "jverity"), List.of("dump", data.toString())))
        .as("any other value: the default, veritysetup's codes on veritysetup's verbs")
        .isEqualTo(1);
    assertThat(
            run(
                Map.of(VeritysetupExitCodes.ENV, "jverity"),
                List.of("read", data.toString(), p("x.hash"), "00")))
        .as("any other value: the default, jverity's codes on jverity's verbs")
        .isEqualTo(ExitCode.INVALID_PARAMETER);
  }

  @Test
  void everyExitCodeMapsToOneOfVeritysetups() {
    for (int code = 0; code <= ExitCode.SIGNATURE_INVALID; code++) {
      assertThat(VeritysetupExitCodes.of(code)).as("%d", code).isIn(0, 1, 2, 3, 4, 5);
      assertThat(VeritysetupExitCodes.of(code) == 0).as("%d", code).isEqualTo(code == ExitCode.OK);
      assertThat(ExitCode.meaning(code)).isNotEqualTo("unknown");
    }
  }

  private static int run(Map<String, String> env, List<String> args) {
    StringWriter sink = new StringWriter();
    try (PrintWriter w = new PrintWriter(sink)) {
      return Main.run(w, w, env, args.toArray(String[]::new));
    }
  }
}
