package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.avb.AvbCommands;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.VeritysetupExitCodes;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.UsageException;
import org.jverity.cli.verity.FormatCommand;
import org.jverity.testkit.Fsverity;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * Long options abbreviated, each command family against its peer: fsverity (getopt_long) takes any
 * prefix that picks one option, and so does jverity's digest and sign, run here with fsverity on
 * every prefix of fsverity digest's options and on fsverity-utils' own {@code make check} lines;
 * avbtool parses with argparse (abbreviations allowed, its default), run here through python3's
 * argparse on every prefix of each avb subcommand's options; veritysetup (popt) takes a name only
 * in full, and refuses here every shortened option as jverity's veritysetup commands do.
 */
class AbbreviatedOptionsTest {
  @TempDir static Path dir;
  static Path file;

  @BeforeAll
  static void files() throws Exception {
    byte[] b = new byte[300_000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ((i % 11) + (i % 439) + (i % 1103)); // fsverity-utils' test file
    }
    file = Files.write(dir.resolve("file"), b);
    Files.write(dir.resolve("hash"), new byte[0]);
    SigTools.rsa(dir, "signer");
  }

  static ToolRun fsverity(List<String> args) {
    ToolResult r = Fsverity.tool().in(dir).run(args);
    return new ToolRun(r.exit(), r.out(), r.stderr());
  }

  /** fsverity's usage text's options: {@code [--hash-alg=HASH_ALG]} as --hash-alg and its label. */
  static Map<String, String> usageOptions(String text) {
    Map<String, String> options = new LinkedHashMap<>();
    Matcher m = Pattern.compile("\\[(?:-\\S\\|)?(--[a-z][a-z0-9-]*)(?:=([^]]+))?]").matcher(text);
    while (m.find()) {
      options.put(m.group(1), m.group(2));
    }
    return options;
  }

  /**
   * Every prefix of each option of fsverity {@code command} (from fsverity's own usage text) that
   * jverity's command has too, given with fsverity and with jverity: the same exit code, output,
   * file written, and refusal as ambiguous.
   */
  @ParameterizedTest
  @CsvSource({"digest, 8", "sign, 0"})
  void everyPrefixOfFsverityOptionsMeansWhatItMeansToFsverity(String command, int ambiguities)
      throws Exception {
    ToolRun usage = fsverity(List.of(command));
    Map<String, String> options = usageOptions(usage.stderr());
    assertThat(options).as("%s", usage).containsKeys("--hash-alg", "--block-size", "--salt");
    Map<String, String> values =
        Map.of(
            "HASH_ALG", "sha512",
            "BLOCK_SIZE", "1024",
            "SALT", "12345678",
            "KEYFILE", dir.resolve("signer.key").toString(),
            "CERTFILE", dir.resolve("signer.crt").toString());
    Syntax<? extends Command> syntax = Commands.named(command);
    int abbreviated = 0;
    int ambiguous = 0;
    for (Map.Entry<String, String> o : options.entrySet()) {
      if (syntax.option(o.getKey()) == null) {
        continue; // --pkcs11-engine...: refused in full too
      }
      for (int n = 3; n <= o.getKey().length(); n++) {
        String prefix = o.getKey().substring(0, n);
        String value = o.getValue() == null ? null : values.get(o.getValue());
        boolean output = "FILE".equals(o.getValue());
        List<String> theirs = new ArrayList<>(List.of(command, file.toString()));
        List<String> ours = new ArrayList<>(theirs);
        if (command.equals("sign")) { // the signature, and the key and certificate in full
          theirs.add(dir.resolve("theirs-out").toString());
          ours.add(dir.resolve("ours-out").toString());
          for (String required : List.of("--key", "--cert")) {
            if (!required.equals(o.getKey())) {
              String v = values.get(options.get(required));
              theirs.add(required + "=" + v);
              ours.add(required + "=" + v);
            }
          }
        }
        theirs.add(
            value == null && !output
                ? prefix
                : prefix + "=" + (output ? dir.resolve("theirs-out") : value));
        ours.add(
            value == null && !output
                ? prefix
                : prefix + "=" + (output ? dir.resolve("ours-out") : value));
        Files.deleteIfExists(dir.resolve("theirs-out"));
        Files.deleteIfExists(dir.resolve("ours-out"));
        ToolRun t = fsverity(theirs);
        ToolRun j = Jverity.run(ours);
        assertThat(j.exitCode()).as("%s\nfsverity: %s", j, t).isEqualTo(t.exitCode());
        assertThat(j.stdout().replace("ours-out", "theirs-out"))
            .as("%s", ours)
            .isEqualTo(t.stdout());
        boolean refusedAsAmbiguous = t.stderr().contains("is ambiguous");
        assertThat(j.stderr().contains("is ambiguous")).as("%s", j).isEqualTo(refusedAsAmbiguous);
        if (Files.exists(dir.resolve("theirs-out"))) {
          assertThat(dir.resolve("ours-out")).hasSameBinaryContentAs(dir.resolve("theirs-out"));
        }
        abbreviated += t.exitCode() == 0 && n < o.getKey().length() ? 1 : 0;
        ambiguous += refusedAsAmbiguous ? 1 : 0;
      }
    }
    // --h, --b, --s, --c, --f, --k... each picked one option; in digest --o, --ou, --out and --out-
    // were ambiguous, as prefixes of either --out-merkle-tree or --out-descriptor
    assertThat(abbreviated).isGreaterThan(20);
    assertThat(ambiguous).isEqualTo(ambiguities);
  }

  @Test
  void fsverityUtilsMakeCheckLinesRunAsWithFsverity() throws Exception {
    List<String> digest = List.of(file.toString(), "--hash=sha512", "--block-size=512");
    List<String> salted = List.of("--salt=12345678");
    List<String> theirsDigest = new ArrayList<>(List.of("digest"));
    theirsDigest.addAll(digest);
    theirsDigest.addAll(salted);
    List<String> oursDigest = new ArrayList<>(theirsDigest);
    assertThat(Jverity.run(oursDigest).stdout())
        .startsWith("sha512:")
        .isEqualTo(fsverity(theirsDigest).stdout());

    List<String> keys =
        List.of("--key=" + dir.resolve("signer.key"), "--cert=" + dir.resolve("signer.crt"));
    for (List<String> options : List.of(List.<String>of(), digest.subList(1, 3))) {
      List<String> theirs =
          new ArrayList<>(List.of("sign", file.toString(), dir.resolve("theirs.sig").toString()));
      theirs.addAll(options);
      theirs.addAll(options.isEmpty() ? List.of() : salted);
      theirs.addAll(keys);
      List<String> ours = new ArrayList<>(theirs);
      ours.set(2, dir.resolve("ours.sig").toString());
      ToolRun t = fsverity(theirs);
      ToolRun o = Jverity.run(ours);
      assertThat(o.exitCode()).as("%s\nfsverity: %s", o, t).isZero().isEqualTo(t.exitCode());
      assertThat(o.stdout()).isEqualTo(t.stdout());
      assertThat(dir.resolve("ours.sig")).hasSameBinaryContentAs(dir.resolve("theirs.sig"));
    }
  }

  @Test
  void anAmbiguousPrefixIsOneLineNamingTheOptionsAndAUsageError() {
    ToolRun theirs = fsverity(List.of("digest", file.toString(), "--out=x"));
    ToolRun ours = Jverity.run("digest", file.toString(), "--out=x");
    assertThat(theirs.stderr()).contains("'--out-merkle-tree' '--out-descriptor'");
    assertThat(ours.exitCode()).isEqualTo(ExitCode.USAGE).isEqualTo(theirs.exitCode());
    assertThat(ours.stderrLines())
        .containsExactly(
            "jverity: option '--out' is ambiguous; possibilities: --out-merkle-tree,"
                + " --out-descriptor (try 'jverity digest --help')");
    assertThat(ours.stdout()).isEmpty();
  }

  @Test
  void whatIsLookedForBeforeParsingSeesTheOptionSpeltOut() {
    ToolRun json = Jverity.run("digest", file.toString(), "--js");
    assertThat(json.exitCode()).as("%s", json).isZero();
    assertThat(json.stdout()).startsWith("{");
    // argparse's help action takes --he as avbtool's --help
    ToolRun help = Jverity.run("avb", "info_image", "--he");
    assertThat(help.exitCode()).as("%s", help).isZero();
    assertThat(help.stdout()).startsWith("Usage: jverity avb info_image");
  }

  /**
   * argparse's verdict (python3's, as avbtool runs) on {@code prefixes} of a parser with {@code
   * options} (name, whether it takes a value): the option picked, "ambiguous: A, B", or "unknown".
   */
  static Map<String, String> argparse(Map<String, Boolean> options, List<String> prefixes) {
    String script =
        """
        import argparse, json, sys
        spec = json.loads(sys.argv[1])
        class Refused(Exception):
            pass
        class Parser(argparse.ArgumentParser):
            def error(self, message):
                raise Refused(message)
        p = Parser(prog='avbtool', add_help=False)
        for name, takes in spec['options'].items():
            p.add_argument(name, dest=name, default=None,
                           action='store' if takes else 'store_true')
        out = {}
        for arg in spec['prefixes']:
            try:
                ns, rest = p.parse_known_args([arg, 'V'])
                picked = [k for k, v in vars(ns).items() if v is not None]
                out[arg] = picked[0] if picked else 'unknown'
            except Refused as e:
                m = str(e)
                if m.startswith('ambiguous option: '):
                    out[arg] = 'ambiguous: ' + ', '.join(sorted(m.split(' could match ')[1].split(', ')))
                else:
                    out[arg] = 'refused: ' + m
        print(json.dumps(out, sort_keys=True))
        """;
    StringBuilder spec = new StringBuilder("{\"options\": {");
    options.forEach((n, v) -> spec.append('"').append(n).append("\": ").append(v).append(", "));
    spec.setLength(spec.length() - 2);
    spec.append("}, \"prefixes\": [");
    prefixes.forEach(p -> spec.append('"').append(p).append("\", "));
    spec.setLength(spec.length() - 2);
    spec.append("]}");
    String out = Tool.of("python3").check("-c", script, spec.toString()).out().strip();
    Map<String, String> verdicts = new TreeMap<>();
    Matcher m = Pattern.compile("\"(--[^\"]*)\": \"([^\"]*)\"").matcher(out);
    while (m.find()) {
      verdicts.put(m.group(1), m.group(2));
    }
    return verdicts;
  }

  /** jverity's verdict on {@code prefix}, in {@link #argparse}'s words. */
  static String jverity(Syntax<? extends Command> s, String prefix) {
    Syntax.Option<?> exact = s.option(prefix);
    if (exact != null) {
      return exact.name();
    }
    for (String arg : List.of(prefix + "=V", prefix)) {
      List<String> spelt = s.spelledOut(List.of(arg), GlobalOptions.SYNTAX);
      if (!spelt.equals(List.of(arg))) {
        return spelt.getFirst().split("=")[0];
      }
    }
    try {
      s.parse(List.of(prefix), GlobalOptions.SYNTAX, new GlobalOptions());
    } catch (UsageException e) {
      String m = e.getMessage();
      int at = m.indexOf("possibilities: ");
      if (at >= 0) {
        List<String> names = new ArrayList<>(List.of(m.substring(at + 15).split(", ")));
        names.sort(null);
        return "ambiguous: " + String.join(", ", names);
      }
    } catch (BadValue e) {
      return "refused: " + e.getMessage();
    }
    return "unknown";
  }

  @Test
  void everyPrefixOfAnAvbSubcommandsOptionsMeansWhatArgparseMakesOfIt() {
    int abbreviated = 0;
    int ambiguous = 0;
    for (Syntax<? extends Command> s : AvbCommands.all()) {
      assertThat(s.abbreviated()).as(s.name()).isTrue();
      Map<String, Boolean> peers = new LinkedHashMap<>(); // avbtool's options: all but jverity's
      List<String> prefixes = new ArrayList<>();
      for (Syntax.Option<?> o : s.options()) {
        if (!s.added().contains(o.name())) {
          peers.put(o.name(), o.takesValue());
          for (int n = 3; n <= o.name().length(); n++) {
            prefixes.add(o.name().substring(0, n));
          }
        }
      }
      if (peers.isEmpty()) {
        continue;
      }
      Map<String, String> theirs = argparse(peers, prefixes);
      Map<String, String> ours = new TreeMap<>();
      prefixes.forEach(p -> ours.put(p, jverity(s, p)));
      assertThat(ours).as(s.name()).isEqualTo(theirs);
      for (Map.Entry<String, String> e : theirs.entrySet()) {
        abbreviated += e.getValue().startsWith("--") && !e.getValue().equals(e.getKey()) ? 1 : 0;
        ambiguous += e.getValue().startsWith("ambiguous") ? 1 : 0;
      }
    }
    assertThat(abbreviated).isGreaterThan(500);
    assertThat(ambiguous).isGreaterThan(50);
  }

  @Test
  void veritysetupRefusesEveryShortenedOptionAndSoDoJveritysVeritysetupCommands() {
    ToolRun usage = VeritysetupOracle.run("--usage");
    Map<String, String> options = usageOptions(usage.stdout() + usage.stderr());
    assertThat(options).as("%s", usage).containsKeys("--hash", "--data-block-size", "--verbose");
    int refused = 0;
    for (Map.Entry<String, String> o : options.entrySet()) {
      if (FormatCommand.SYNTAX.option(o.getKey()) == null
          && GlobalOptions.SYNTAX.option(o.getKey()) == null) {
        continue; // an option jverity format lacks is refused in full too
      }
      String arg =
          o.getKey().substring(0, o.getKey().length() - 1) + (o.getValue() == null ? "" : "=1");
      ToolRun theirs =
          VeritysetupOracle.run("format", file.toString(), dir.resolve("hash").toString(), arg);
      ToolRun ours = Jverity.run("format", file.toString(), dir.resolve("hash").toString(), arg);
      assertThat(theirs.stderr()).as("%s", theirs).contains(arg + ": unknown option");
      assertThat(VeritysetupExitCodes.of(ours.exitCode()))
          .as("%s", ours)
          .isEqualTo(theirs.exitCode());
      assertThat(ours.stderr())
          .as("%s", arg)
          .startsWith("jverity: unknown option '" + arg.split("=")[0] + "'");
      refused++;
    }
    assertThat(refused).isGreaterThan(15);
    // before the command too: veritysetup --verb format is refused, --verbose is not
    ToolRun theirs =
        VeritysetupOracle.run("--verb", "format", file.toString(), dir.resolve("hash").toString());
    ToolRun ours = Jverity.run("--verb", "format", file.toString(), dir.resolve("hash").toString());
    assertThat(theirs.stderr()).as("%s", theirs).contains("--verb: unknown option");
    assertThat(VeritysetupExitCodes.of(ours.exitCode())).isEqualTo(theirs.exitCode());
    assertThat(ours.stderr()).startsWith("jverity: unknown option '--verb'");
  }

  @Test
  void jveritysOwnCommandsFollowVeritysetupAndTakeNamesInFull() {
    int checked = 0;
    for (String command :
        List.of("format", "verify", "dump", "read", "repair", "open", "serve", "status", "close")) {
      Syntax<? extends Command> s = Commands.named(command);
      assertThat(s.abbreviated()).as(command).isFalse();
      String longest = null;
      for (Syntax.Option<?> o : s.options()) {
        if (o.name().startsWith("--")
            && (longest == null || o.name().length() > longest.length())) {
          longest = o.name();
        }
      }
      if (longest == null) {
        continue; // the global options only: format's test covers them
      }
      checked++;
      String arg = longest.substring(0, longest.length() - 1);
      ToolRun r = Jverity.run(command, arg);
      assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.USAGE);
      assertThat(r.stderr()).startsWith("jverity: unknown option '" + arg + "'");
    }
    assertThat(checked).isGreaterThanOrEqualTo(6);
  }
}
