package org.jverity.cli.doc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.CommandTable;
import org.jverity.cli.ScratchBash;
import org.jverity.cli.TestLauncher;
import org.jverity.cli.command.Command;
import org.jverity.cli.syntax.Syntax;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Tool;

/**
 * Every example of the manual pages runs as the page shows it (issue 28): the lines of each
 * EXAMPLES display are read back from the generated roff (escapes undone, the shell's continuations
 * kept) and run in bash, page after page in one scratch directory, as a user would run them one
 * after another; each must exit 0. jverity-serve.conf(5)'s example is the serve.conf they use. The
 * examples of status, close and reload need a running server: the test starts one on that config
 * before each and stops it after.
 */
class ManPageExamplesTest {
  /** The pages whose examples talk to a running {@code jverity serve serve.conf}. */
  private static final Set<String> NEED_A_SERVER = Set.of("status", "close", "reload");

  @TempDir static Path dir;
  private static Map<String, String> pages;

  @BeforeAll
  static void prepare() throws Exception {
    for (String tool : List.of("nbdcopy", "nbdinfo", "openssl", "mkfs.ext4")) {
      Tool.of(tool).require();
    }
    TestLauncher.write(dir);
    pages = ManPages.all("2026-01-01");
    List<List<String>> conf = displays(pages.get("man5/jverity-serve.conf.5"), "EXAMPLE");
    assertThat(conf).as("jverity-serve.conf(5)'s EXAMPLE").hasSize(1);
    Files.writeString(dir.resolve("serve.conf"), String.join("\n", conf.get(0)) + "\n");
    Files.copy(AvbTestKeys.path("testkey_rsa4096.pem"), dir.resolve("system_key.pem"));
    ScratchBash.Result fixtures =
        bash(
            String.join(
                "\n",
                "set -e",
                "mkdir -p run tmp home && chmod 0700 run",
                "head -c 4194304 /dev/urandom > data.img",
                "head -c 4194304 /dev/urandom > system.img",
                "head -c 1048576 /dev/urandom > boot.img",
                "head -c 1048576 /dev/urandom > app.bin",
                "openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2"
                    + " -subj /CN=jverity-man 2> /dev/null",
                "mkfs.ext4 -q rootfs.ext4 8M", // ddi's examples: a file system, its signer trusted
                "mkdir -p keys && cp cert.pem keys/signer.crt"),
            60);
    assertThat(fixtures.code()).as("fixtures: %s", fixtures.output()).isZero();
  }

  @Test
  void everyCommandHasAnExample() {
    List<String> without = new ArrayList<>();
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      if (examples(c.name()).isEmpty()) {
        without.add(c.name());
      }
    }
    assertThat(without).as("commands whose page has no EXAMPLES").isEmpty();
  }

  @TestFactory
  List<DynamicTest> everyExampleRunsAsThePageShowsIt() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      for (String example : examples(c.name())) {
        tests.add(
            DynamicTest.dynamicTest(
                "jverity-" + c.name() + "(8): " + example, () -> run(c.name(), example)));
      }
    }
    return tests;
  }

  private static List<String> examples(String command) {
    return displays(pages.get("man8/jverity-" + command + ".8"), "EXAMPLES").stream()
        .map(lines -> String.join("\n", lines))
        .toList();
  }

  private static void run(String command, String example) throws Exception {
    String script =
        NEED_A_SERVER.contains(command)
            ? String.join(
                "\n",
                "jverity serve serve.conf > serve.out 2> serve.err & server=$!",
                "for i in $(seq 600); do [ -s serve.out ] && break; sleep 0.1; done",
                "[ -s serve.out ] || { cat serve.err; kill $server; exit 99; }",
                "rc=0; " + example + " || rc=$?",
                "kill $server 2> /dev/null; wait $server; exit $rc")
            : example;
    ScratchBash.Result r = bash("set -o pipefail\n" + script, 300);
    assertThat(r.code()).as("%s%n%s", example, r.output()).isZero();
  }

  /**
   * The unfilled displays of {@code section} in a page, each as the lines it shows: font escapes
   * dropped, the minus, backslash and zero-width escapes undone.
   */
  static List<List<String>> displays(String page, String section) {
    List<List<String>> displays = new ArrayList<>();
    boolean in = false;
    List<String> display = null;
    for (String line : page.split("\n")) {
      if (line.startsWith(".SH ")) {
        in = line.equals(".SH " + section);
      } else if (in && line.equals(".nf")) {
        display = new ArrayList<>();
      } else if (in && line.equals(".fi")) {
        displays.add(display);
        display = null;
      } else if (display != null) {
        String text = line.replace("\\fB", "").replace("\\fR", "").replace("\\-", "-");
        text = text.startsWith("\\&") ? text.substring(2) : text;
        display.add(text.replace("\\e", "\\"));
      }
    }
    return displays;
  }

  /** Runs {@code script} in bash in the scratch directory; every process it left is stopped. */
  private static ScratchBash.Result bash(String script, int seconds) throws Exception {
    return ScratchBash.run(
        dir,
        Map.of(
            "PATH", dir.resolve("bin") + ":/usr/bin:/usr/sbin:/bin:/sbin",
            "HOME", dir.resolve("home").toString(),
            "TMPDIR", dir.resolve("tmp").toString(),
            "JVERITY_RUNTIME_DIR", dir.resolve("run").toString()),
        script,
        seconds);
  }
}
