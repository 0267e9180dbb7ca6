package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.ExitCodeRule;

/**
 * The exit codes a command line gets when it asks for none ({@link ExitCodeRule}): veritysetup's on
 * veritysetup's verbs, checked against veritysetup itself on the same files, so that a script
 * ported from veritysetup keeps its meaning; jverity's detailed ones on jverity's own verbs; and
 * the two opt-ins. Unlike every other test, these run without {@link Jverity#DETAILED}.
 */
class ExitCodeDefaultsTest {
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";

  @TempDir Path dir;
  Path data;
  Path corrupt;
  String root;
  String wrongRoot;

  @BeforeEach
  void image() throws IOException {
    byte[] bytes = new byte[64 * 4096];
    new SplittableRandom(14).nextBytes(bytes);
    data = Files.write(dir.resolve("data.img"), bytes);
    bytes[5000] ^= 1;
    corrupt = Files.write(dir.resolve("corrupt.img"), bytes);
    ToolRun f = Jverity.run("format", data.toString(), p("data.hash"), "--salt", SALT);
    assertThat(f.exitCode()).as("%s", f).isZero();
    root = f.headerField("Root hash");
    wrongRoot = (root.charAt(0) == '0' ? "1" : "0") + root.substring(1);
  }

  private String p(String name) {
    return dir.resolve(name).toString();
  }

  /** jverity in-process with the environment of a user who set nothing, plus {@code extra}. */
  private static ToolRun plain(Map<String, String> extra, List<String> args) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.remove(ExitCodeRule.ENV);
    env.putAll(extra);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try (PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err)) {
      code = Main.run(o, e, env, args.toArray(String[]::new));
    }
    return new ToolRun(code, out.toString(), err.toString());
  }

  private static ToolRun plain(String... args) {
    return plain(Map.of(), List.of(args));
  }

  /**
   * veritysetup's verbs, the cases veritysetup has an answer for: jverity's default is its code.
   */
  private List<List<String>> veritysetupCases() {
    return List.of(
        List.of("verify", data.toString(), p("data.hash"), root),
        List.of("verify", corrupt.toString(), p("data.hash"), root),
        List.of("verify", data.toString(), p("data.hash"), wrongRoot),
        List.of("verify", p("missing.img"), p("data.hash"), root),
        List.of("verify", data.toString(), p("data.hash"), root, "--bogus"),
        List.of("verify", data.toString(), p("data.hash")),
        List.of("format", data.toString(), p("new.hash"), "--salt", SALT),
        List.of("format", data.toString(), p("bad.hash"), "--data-block-size", "1000"),
        List.of("format", p("missing.img"), p("m.hash")),
        List.of("dump", p("data.hash")),
        List.of("dump", data.toString()),
        List.of("dump", p("missing.hash")));
  }

  @Test
  void veritysetupsVerbsExitWithVeritysetupsCodesByDefault() {
    List<Integer> veritysetupCodes = new ArrayList<>();
    for (List<String> args : veritysetupCases()) {
      ToolRun vs = VeritysetupOracle.run(args);
      ToolRun jv = plain(Map.of(), args);
      assertThat(jv.exitCode())
          .as("%s\njverity: %s\nveritysetup: %s", args, jv, vs)
          .isEqualTo(vs.exitCode());
      veritysetupCodes.add(vs.exitCode());
    }
    // Not a vacuous agreement: veritysetup's success, -EPERM (corruption), -ENODEV (no file) and
    // -EINVAL (the rest) all occur.
    assertThat(veritysetupCodes).contains(0, 1, 2, 4);
    assertThat(plain("verify", corrupt.toString(), p("data.hash"), root).exitCode()).isEqualTo(2);
  }

  @Test
  void jveritysOwnVerbsKeepTheDetailedCodes() {
    assertThat(plain("read", corrupt.toString(), p("data.hash"), root, "-o", p("out")).exitCode())
        .isEqualTo(ExitCode.CORRUPTION);
    assertThat(plain("read", data.toString(), p("data.hash"), wrongRoot, "-o", p("out")).exitCode())
        .isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(plain("read", data.toString(), p("data.hash"), root, "--bogus").exitCode())
        .isEqualTo(ExitCode.USAGE);
    assertThat(plain("repair", data.toString(), p("data.hash"), root).exitCode())
        .as("no --fec-device")
        .isEqualTo(ExitCode.USAGE);
  }

  @Test
  void detailedCodesOnEveryVerbWhenAsked() {
    List<String> corrupted = List.of("verify", corrupt.toString(), p("data.hash"), root);
    List<String> withOption = new ArrayList<>(corrupted);
    withOption.add(ExitCodeRule.DETAILED_OPTION);
    assertThat(plain(Map.of(), withOption).exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(plain(Map.of(ExitCodeRule.ENV, "detailed"), corrupted).exitCode())
        .isEqualTo(ExitCode.CORRUPTION);
    assertThat(plain("--detailed-exit-codes", "dump", data.toString()).exitCode())
        .isEqualTo(ExitCode.BAD_SUPERBLOCK);
    assertThat(
            plain(
                    "--detailed-exit-codes",
                    "verify",
                    data.toString(),
                    p("data.hash"),
                    root,
                    "--bogus")
                .exitCode())
        .as("a command line that does not parse")
        .isEqualTo(ExitCode.USAGE);
  }

  @Test
  void veritysetupCodesOnEveryVerbWhenAsked() {
    List<String> read = List.of("read", corrupt.toString(), p("data.hash"), root, "-o", p("out"));
    List<String> withOption = new ArrayList<>(read);
    withOption.add(ExitCodeRule.VERITYSETUP_OPTION);
    assertThat(plain(Map.of(), withOption).exitCode()).isEqualTo(2);
    assertThat(plain(Map.of(ExitCodeRule.ENV, "veritysetup"), read).exitCode()).isEqualTo(2);
    assertThat(
            plain(
                    Map.of(ExitCodeRule.ENV, "veritysetup"),
                    List.of("repair", data.toString(), p("data.hash"), root))
                .exitCode())
        .isEqualTo(1);
    // The option wins over the environment.
    List<String> detailed = new ArrayList<>(read);
    detailed.add(ExitCodeRule.DETAILED_OPTION);
    assertThat(plain(Map.of(ExitCodeRule.ENV, "veritysetup"), detailed).exitCode())
        .isEqualTo(ExitCode.CORRUPTION);
  }

  @Test
  void openPassesRestartAndPanicThroughByDefault() {
    assertThat(ExitCodeRule.BY_VERB.exitCode("open", ExitCode.RESTART)).isEqualTo(ExitCode.RESTART);
    assertThat(ExitCodeRule.BY_VERB.exitCode("open", ExitCode.PANIC)).isEqualTo(ExitCode.PANIC);
    assertThat(ExitCodeRule.BY_VERB.exitCode("open", ExitCode.IO_ERROR)).isEqualTo(4);
    assertThat(ExitCodeRule.BY_VERB.exitCode("open", ExitCode.ROOT_HASH_MISMATCH)).isEqualTo(1);
    // veritysetup status and close of a name not active: -ENODEV, 4 ("NAME is inactive.").
    assertThat(ExitCodeRule.BY_VERB.exitCode("status", ExitCode.INACTIVE)).isEqualTo(4);
    assertThat(ExitCodeRule.BY_VERB.exitCode("close", ExitCode.INACTIVE))
        .as("close, when it lands")
        .isEqualTo(4);
    assertThat(ExitCodeRule.VERITYSETUP.exitCode("open", ExitCode.RESTART))
        .as("asked for: all mapped")
        .isEqualTo(1);
    assertThat(ExitCodeRule.BY_VERB.exitCode("serve", ExitCode.RESTART))
        .isEqualTo(ExitCode.RESTART);
  }

  @Test
  void verboseSaysTheCodeReturned() {
    ToolRun r = plain("-v", "verify", corrupt.toString(), p("data.hash"), root);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderrLines()).last().isEqualTo("Command failed with code 2 (corrupted blocks).");
    ToolRun detailed =
        plain("-v", "--detailed-exit-codes", "verify", corrupt.toString(), p("data.hash"), root);
    assertThat(detailed.stderrLines())
        .last()
        .isEqualTo("Command failed with code 8 (corrupted blocks).");
  }

  @Test
  void helpEndsWithTheVerbsExitCodes() {
    String verify = plain("verify", "--help").stdout();
    assertThat(verify.strip().replace('\n', ' ').replaceAll(" +", " "))
        .containsPattern(
            "Exit codes \\(veritysetup's; --detailed-exit-codes for jverity's\\): 0 success; 1 .*; 2"
                + " corrupted blocks, no block matches: wrong parameters; 4 file missing, unreadable or failing, no such export"
                + " served; 141 standard output closed by its reader\\.$");
    String read = plain("read", "--help").stdout();
    assertThat(read.strip().replace('\n', ' ').replaceAll(" +", " "))
        .contains(
            "Exit codes (jverity's; --veritysetup-exit-codes for veritysetup's): 0 success; 1 internal error;")
        .endsWith(
            "15 hash algorithm not supported; 16 remote origin refused the credentials;"
                + " 17 not a valid AVB image; 18 AVB verification failed; 19 not a valid DDI;"
                + " 141 standard output closed by its reader.");
    String open = plain("open", "--help").stdout().replace('\n', ' ').replaceAll(" +", " ");
    assertThat(open).contains("; 11 restart on corruption; 12 panic on corruption");
  }
}
