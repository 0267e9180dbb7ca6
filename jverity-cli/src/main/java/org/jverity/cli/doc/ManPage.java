package org.jverity.cli.doc;

import java.util.List;
import org.jverity.cli.command.ExitCodeRule;
import org.jverity.cli.syntax.Syntax;

/**
 * One manual page in man(7) macros, in veritysetup(8)'s order of sections: NAME, SYNOPSIS,
 * DESCRIPTION, OPTIONS, RETURN CODES, EXAMPLES, SEE ALSO. Built from the command's {@link Syntax}:
 * every option and parameter {@code --help} shows is here, in the same words.
 */
final class ManPage {
  private final StringBuilder b = new StringBuilder();

  ManPage(String name, int section, String date, String version) {
    b.append(".TH \"")
        .append(Roff.literal(name.toUpperCase(java.util.Locale.ROOT)))
        .append("\" ")
        .append(section)
        .append(" \"")
        .append(date)
        .append("\" \"jverity ")
        .append(Roff.text(version))
        .append("\" \"jverity manual\"\n");
  }

  /** Whether the last line was a heading, after which a paragraph needs no {@code .PP}. */
  private boolean afterHeading;

  ManPage section(String title) {
    b.append(".SH ").append(title).append('\n');
    afterHeading = true;
    return this;
  }

  ManPage subsection(String title) {
    b.append(".SS ").append(Roff.literal(title)).append('\n');
    afterHeading = true;
    return this;
  }

  ManPage paragraph(String text) {
    b.append(afterHeading ? "" : ".PP\n").append(Roff.text(text)).append('\n');
    afterHeading = false;
    return this;
  }

  ManPage raw(String roff) {
    b.append(roff).append('\n');
    afterHeading = false;
    return this;
  }

  /** A tagged paragraph: {@code tag} in bold (literal), {@code text} indented under it. */
  ManPage item(String tagRoff, String text) {
    afterHeading = false;
    b.append(".TP\n").append(tagRoff).append('\n').append(Roff.text(text)).append('\n');
    return this;
  }

  /** The synopsis line of {@code command} (with {@code prefix}, e.g. "jverity avb"). */
  ManPage synopsis(String prefix, Syntax<?> command) {
    StringBuilder line = new StringBuilder(".B ").append(Roff.literal(prefix)).append('\n');
    line.append("[\\fIOPTION\\fR...]");
    for (Syntax.Parameter<?> p : command.parameters()) {
      String w = "\\fI" + Roff.literal(p.label()) + "\\fR" + (p.many() ? "..." : "");
      line.append(' ').append(p.min() == 0 ? "[" + w + "]" : w);
    }
    b.append(line).append('\n');
    afterHeading = false;
    return this;
  }

  /** The parameters of {@code command}, one tagged paragraph each. */
  ManPage parameters(Syntax<?> command) {
    for (Syntax.Parameter<?> p : command.parameters()) {
      item("\\fI" + Roff.literal(p.label()) + "\\fR", p.help());
    }
    return this;
  }

  /** The options of {@code syntax}, one tagged paragraph each: names, value, help. */
  ManPage options(Syntax<?> syntax) {
    for (Syntax.Option<?> o : syntax.options()) {
      item(tag(o), o.help() + (o.required() ? " Required." : ""));
    }
    return this;
  }

  /**
   * An option's tag: its names with the value's label, comma-separated, or one per line ({@code
   * .TQ}) when together they would not fit a terminal's line beside nothing (roff cannot break a
   * tag, and says it cannot adjust the line).
   */
  static String tag(Syntax.Option<?> o) {
    List<String> names = new java.util.ArrayList<>();
    int width = 0;
    for (String n : o.names()) {
      String label = o.takesValue() ? (n.startsWith("--") ? "=" : " ") + o.label() : "";
      width += n.length() + label.length() + 2;
      names.add(
          "\\fB"
              + Roff.literal(n)
              + "\\fR"
              + (label.isEmpty()
                  ? ""
                  : label.charAt(0) + "\\fI" + Roff.literal(label.substring(1)) + "\\fR"));
    }
    return String.join(width > TAG_WIDTH ? "\n.TQ\n" : ", ", names);
  }

  /** The widest tag kept on one line: what is left of 80 columns after the page's margins. */
  private static final int TAG_WIDTH = 64;

  /** RETURN CODES: what {@code --help} says of the command's exit codes. */
  ManPage returnCodes(String command) {
    section("RETURN CODES");
    paragraph(ExitCodeRule.helpFor(command));
    return this;
  }

  /** EXAMPLES: each example's sentence, then its line as typed, unfilled. */
  ManPage examples(List<Syntax.Example> examples) {
    section("EXAMPLES");
    for (Syntax.Example e : examples) {
      paragraph(e.what());
      display(Roff.commandLine(e.line()));
    }
    return this;
  }

  /** Lines shown as they are (unfilled, indented): a command line, a config file. */
  ManPage display(List<String> roffLines) {
    b.append(".PP\n.RS 4\n.nf\n");
    for (String l : roffLines) {
      b.append(l).append('\n');
    }
    b.append(".fi\n.RE\n");
    afterHeading = false;
    return this;
  }

  ManPage seeAlso(List<String> pages) {
    section("SEE ALSO");
    StringBuilder s = new StringBuilder();
    for (String p : pages) {
      int open = p.indexOf('(');
      if (!s.isEmpty()) {
        s.append(",\n");
      }
      s.append(".BR ")
          .append(Roff.literal(p.substring(0, open)))
          .append(' ')
          .append(p.substring(open));
    }
    b.append(s).append('\n');
    return this;
  }

  String text() {
    return b.toString();
  }
}
