package org.jverity.cli.command;

import java.util.List;
import java.util.function.Supplier;
import org.jverity.cli.syntax.Syntax;

/**
 * Commands by name, in the order help lists them: one ordered table, from which the names, the
 * lookup and the list all come, so a command is added in one line. A command's syntax is built when
 * it is looked up (its class's static initialiser), not before: a command line naming one command
 * builds that command's alone.
 */
public final class CommandList {
  /** One command: its name, and how to get its syntax. */
  public record Entry(String name, Supplier<Syntax<? extends Command>> syntax) {}

  private final List<Entry> entries;

  private CommandList(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  public static CommandList of(Entry... entries) {
    return new CommandList(List.of(entries));
  }

  public static Entry command(String name, Supplier<Syntax<? extends Command>> syntax) {
    return new Entry(name, syntax);
  }

  /** The names, in order. */
  public List<String> names() {
    return entries.stream().map(Entry::name).toList();
  }

  /** The syntax of the command {@code name}, or null when there is none of that name. */
  public Syntax<? extends Command> named(String name) {
    for (Entry e : entries) {
      if (e.name().equals(name)) {
        return e.syntax().get();
      }
    }
    return null;
  }

  /** Every command's syntax, in order (building them all). */
  public List<Syntax<? extends Command>> all() {
    return entries.stream().<Syntax<? extends Command>>map(e -> e.syntax().get()).toList();
  }
}
