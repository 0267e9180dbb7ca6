package org.jverity.cli.doc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.CommandTable;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.serve.ServeConfig;
import org.jverity.cli.syntax.Syntax;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * The manual pages and completions GenerateDocs writes: every option and parameter of every command
 * in its page (the pages are the declarations, so they cannot drift from --help), every config key
 * in jverity-serve.conf(5), no warning from groff or mandoc, the same bytes twice.
 */
class GenerateDocsTest {
  @TempDir static Path out;

  @BeforeAll
  static void generate() throws IOException {
    GenerateDocs.write(out, "2026-01-01");
  }

  private static String page(String name) throws IOException {
    return Files.readString(out.resolve("man").resolve(name));
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    for (String s : List.of("man5", "man8")) {
      try (Stream<Path> files = Files.list(out.resolve("man").resolve(s))) {
        files.sorted().forEach(pages::add);
      }
    }
    return pages;
  }

  private static void assertDocuments(String page, Syntax<?> syntax) {
    for (Syntax.Option<?> o : syntax.options()) {
      for (String n : o.names()) {
        assertThat(page)
            .as("%s in %s", n, syntax.name())
            .contains("\\fB" + Roff.literal(n) + "\\fR");
      }
    }
    for (Syntax.Parameter<?> p : syntax.parameters()) {
      assertThat(page)
          .as("%s in %s", p.label(), syntax.name())
          .contains("\\fI" + Roff.literal(p.label()));
    }
  }

  @Test
  void everyCommandsPageHasEveryOptionAndParameterItsHelpHas() throws IOException {
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      String page = page("man8/jverity-" + c.name() + ".8");
      assertDocuments(page, c);
      assertDocuments(page, CommandTable.globalOptions());
      assertThat(page).contains(".SH RETURN CODES").contains(".SH SEE ALSO");
      assertThat(page("man8/jverity.8"))
          .contains(".BR " + Roff.literal("jverity-" + c.name()) + " (8)");
    }
    for (CommandGroup g : CommandTable.subcommandGroups()) {
      String page = page("man8/jverity-" + g.name() + ".8");
      for (Syntax<? extends Command> s : g.subcommands().all()) {
        assertThat(page).contains(".SS " + Roff.literal(s.name()));
        assertDocuments(page, s);
      }
    }
  }

  @Test
  void theConfigFilesPageHasEveryKey() throws IOException {
    String page = page("man5/jverity-serve.conf.5");
    for (String k :
        Stream.concat(ServeConfig.GENERIC_KEYS.stream(), ServeConfig.EXPORT_KEYS.stream())
            .toList()) {
      assertThat(page).as(k).contains("\\fB" + Roff.literal(k) + "\\fR");
    }
  }

  @Test
  void groffAndMandocFindNothingToSayOfAnyPage() throws IOException {
    List<Path> pages = pages();
    assertThat(pages).hasSize(CommandTable.commands().size() + 2);
    for (Path p : pages) {
      ToolResult groff = Tool.of("groff").run("-ww", "-z", "-man", p.toString());
      assertThat(groff.exit()).as(groff.toString()).isZero();
      assertThat(groff.stderr()).as(p.toString()).isEmpty();
      ToolResult lint = Tool.of("mandoc").run("-T", "lint", p.toString());
      assertThat(lint.out() + lint.stderr()).as(p.toString()).isEmpty();
      // As a user reads it on an 80-column terminal: a tag roff cannot fit warns only here.
      ToolResult man = Tool.of("man").env("MANWIDTH", "80").run("-l", p.toString());
      assertThat(man.exit()).as(man.toString()).isZero();
      assertThat(man.stderr()).as("man -l " + p).isEmpty();
    }
  }

  @Test
  void twoGenerationsAreTheSameBytesAndTheDateIsSourceDateEpochs(@TempDir Path again)
      throws IOException {
    GenerateDocs.write(again, "2026-01-01");
    for (Path p : pages()) {
      assertThat(again.resolve(out.relativize(p))).hasSameBinaryContentAs(p);
    }
    assertThat(GenerateDocs.date("1767225600")).isEqualTo("2026-01-01");
    assertThat(GenerateDocs.date(null)).isEqualTo(GenerateDocs.FIXED_DATE);
    assertThat(page("man8/jverity.8")).startsWith(".TH \"JVERITY\" 8 \"2026-01-01\"");
  }
}
