package org.jverity.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.jverity.cli.CommandTable;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.avb.AvbCommands;
import org.jverity.cli.syntax.Syntax;

/**
 * The groups of subcommands as the dispatch and the documents take them: a group is declared apart
 * from its entry among the commands, so a test holds the two together; and a group's errors read as
 * avb's always have.
 */
class CommandGroupTest {
  @Test
  void everyGroupIsTheCommandOfItsNameAndItsSubcommandsAreNamedWithBothWords() {
    assertThat(CommandTable.subcommandGroups()).isNotEmpty();
    for (CommandGroup g : CommandTable.subcommandGroups()) {
      List<Syntax<? extends Command>> named =
          CommandTable.commands().stream().filter(c -> c.name().equals(g.name())).toList();
      assertThat(named).as(g.name()).hasSize(1);
      assertThat(named.get(0)).as(g.name()).isSameAs(g.syntax());
      assertThat(g.subcommands().names()).as(g.name()).isNotEmpty();
      for (String sub : g.subcommands().names()) {
        assertThat(g.subcommands().named(sub).name()).isEqualTo(g.name() + " " + sub);
      }
    }
  }

  @Test
  void aMissingOrUnknownSubcommandIsOneLineNamingThoseThereAre() {
    String listed =
        "(subcommands: " + String.join(", ", AvbCommands.NAMES) + "; see 'jverity avb --help')";
    CliException missing = AvbCommands.GROUP.missing();
    assertThat(missing.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(missing.getMessage()).isEqualTo("missing subcommand " + listed);
    assertThat(AvbCommands.GROUP.unknown("resize_everything"))
        .isEqualTo("unknown subcommand 'avb resize_everything' " + listed);
    ToolRun unknown = Jverity.run("avb", "resize_everything");
    assertThat(unknown.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(unknown.stderrLines())
        .containsExactly("jverity: unknown subcommand 'avb resize_everything' " + listed);
    ToolRun none = Jverity.run("avb");
    assertThat(none.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(none.stderrLines()).containsExactly("jverity: missing subcommand " + listed);
  }
}
