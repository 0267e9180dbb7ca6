package org.jverity.cli.doc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.CommandTable;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.syntax.Syntax;

/**
 * Shell completion generated from the declarations: commands, each group's subcommands (avb's),
 * each one's options, a fixed set of values where an option has one, files where a file goes, and
 * for status, close and reload the exports whose status sockets are in the runtime directory
 * (listed by the shell at Tab time: starting a JVM per Tab would take a tenth of a second). zsh
 * runs the same function through its bash emulation, so the two cannot disagree.
 */
final class Completions {
  private Completions() {}

  /** Commands that name a served export, completed from the runtime directory. */
  private static final List<String> BY_EXPORT = List.of("status", "close", "reload");

  /** The bash script: functions {@code __jverity_*} and {@code complete -F}. */
  static String bash() {
    Map<String, Syntax<? extends Command>> commands = new LinkedHashMap<>();
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      commands.put(c.name(), c);
    }
    // Per group: how its subcommands' options are keyed ("avb SUB"), how the word after its name
    // makes that key, and the subcommands offered after its name.
    List<String> keyed = new ArrayList<>();
    List<String> subcommand = new ArrayList<>();
    List<String> offered = new ArrayList<>();
    for (CommandGroup g : CommandTable.subcommandGroups()) {
      List<String> subs = new ArrayList<>();
      for (Syntax<? extends Command> s : g.subcommands().all()) {
        commands.put(s.name(), s); // "avb NAME"
        subs.add(s.name().substring(s.name().indexOf(' ') + 1));
      }
      keyed.add("\"" + g.name() + " SUB\" for " + g.name() + "'s");
      subcommand.add("elif [ \"$cmd\" = " + g.name() + " ]; then cmd=\"" + g.name() + " $w\"; ");
      offered.add(
          g.name()
              + ") COMPREPLY=($(compgen -W \""
              + String.join(" ", subs)
              + "\" -- \"$cur\")) ;;");
    }
    String global = String.join(" ", names(CommandTable.globalOptions()));
    StringBuilder b = new StringBuilder();
    b.append(
        "# bash completion for jverity, generated from its command declarations (as --help).\n");
    b.append(
        """
        # The exports of status, close and reload: the status sockets NAME.ctl in the runtime
        # directory, found as jverity finds it (--runtime-dir, else $JVERITY_RUNTIME_DIR, else
        # $XDG_RUNTIME_DIR/jverity, else /run/jverity for root, else $TMPDIR/jverity-USER).
        __jverity_exports() {
          local d=${1:-${JVERITY_RUNTIME_DIR:-}} f
          if [ -z "$d" ]; then
            if [ -n "${XDG_RUNTIME_DIR:-}" ]; then d=$XDG_RUNTIME_DIR/jverity
            elif [ "$(id -u)" = 0 ]; then d=/run/jverity
            else d=${TMPDIR:-/tmp}/jverity-$(id -un); fi
          fi
          for f in "$d"/*.ctl; do
            [ -e "$f" ] || continue
            f=${f##*/}; echo "${f%.ctl}"
          done
        }
        """);
    b.append("# The options of a command (")
        .append(String.join(", ", keyed))
        .append(").\n__jverity_options() {\n  case $1 in\n");
    for (var e : commands.entrySet()) {
      b.append("    '")
          .append(e.getKey())
          .append("') echo '")
          .append(String.join(" ", names(e.getValue())));
      b.append("' ;;\n");
    }
    b.append("  esac\n}\n");
    b.append("# What an option's value is: file, choices:A B..., value; nothing for a flag.\n");
    b.append("__jverity_value() {\n  case \"$1 $2\" in\n");
    for (var e : commands.entrySet()) {
      for (Syntax.Option<?> o : e.getValue().options()) {
        if (!o.takesValue()) {
          continue;
        }
        List<String> cases = new ArrayList<>();
        for (String n : o.names()) {
          cases.add("'" + e.getKey() + " " + n + "'");
        }
        b.append("    ")
            .append(String.join("|", cases))
            .append(") echo '")
            .append(kind(e.getValue(), o))
            .append("' ;;\n");
      }
    }
    b.append("  esac\n}\n");
    b.append(
        """
        __jverity() {
          local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" w i skip="" kind runtime=""
          [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
          for ((i = 1; i < COMP_CWORD; i++)); do
            w=${COMP_WORDS[i]}
            if [ -n "$skip" ]; then
              [ "$skip" = runtime ] && runtime=$w
              skip=""; continue
            fi
            case $w in
              --runtime-dir=*) runtime=${w#--runtime-dir=} ;;
              -*=*) ;;
              -*) [ -n "$(__jverity_value "$cmd" "$w")" ] && skip=1
                  [ "$w" = --runtime-dir ] && skip=runtime ;;
              *) if [ -z "$cmd" ]; then cmd=$w; @SUBCOMMAND@fi ;;
            esac
          done
          COMPREPLY=()
          local prefix=""
          if [[ $cur == --*=* ]]; then
            prev=${cur%%=*}; prefix=$prev=; cur=${cur#*=}
          elif [ -n "$skip" ]; then
            :
          else
            prev=""
          fi
          if [ -n "$prev" ]; then
            kind=$(__jverity_value "$cmd" "$prev")
            case $kind in
              file) COMPREPLY=($(compgen -f -- "$cur")) ;;
              choices:*) COMPREPLY=($(compgen -W "${kind#choices:}" -- "$cur")) ;;
            esac
            [ -n "$prefix" ] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
            return 0
          fi
          if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$(__jverity_options "$cmd") @GLOBAL@" -- "$cur"))
            return 0
          fi
          case $cmd in
            "") COMPREPLY=($(compgen -W "@COMMANDS@" -- "$cur")) ;;
            @OFFERED@
            @BY_EXPORT@) COMPREPLY=($(compgen -W "$(__jverity_exports "$runtime")" -- "$cur")) ;;
            *) COMPREPLY=($(compgen -f -- "$cur")) ;;
          esac
          return 0
        }
        """
            .replace("@GLOBAL@", global)
            .replace(
                "@COMMANDS@",
                String.join(" ", CommandTable.commands().stream().map(Syntax::name).toList()))
            .replace("@SUBCOMMAND@", String.join("", subcommand))
            .replace("@OFFERED@", String.join("\n    ", offered))
            .replace("@BY_EXPORT@", String.join("|", BY_EXPORT)));
    return b.toString();
  }

  /** The bash script, registered for bash. */
  static String bashScript() {
    return bash() + "complete -F __jverity jverity\n";
  }

  /**
   * The zsh completion function: the bash functions run under zsh's bash emulation (bashcompinit's
   * compgen), with zero-based arrays as bash has them.
   */
  static String zsh() {
    return "#compdef jverity\n"
        + "# zsh completion for jverity: the bash completion's functions (generated from the same\n"
        + "# declarations), run with bash's array indexing; their COMPREPLY is offered to zsh.\n"
        + "autoload -U +X bashcompinit && bashcompinit\n"
        + "setopt localoptions ksharrays\n"
        + "if (( ! ${+functions[__jverity]} )); then\n"
        + bash()
        + "fi\n"
        + "local -a COMP_WORDS COMPREPLY\n"
        + "local COMP_CWORD\n"
        + "COMP_WORDS=(\"${words[@]}\")\n"
        + "COMP_CWORD=$((CURRENT - 1))\n"
        + "__jverity\n"
        + "compadd -Q -- \"${COMPREPLY[@]}\"\n";
  }

  private static String kind(Syntax<?> syntax, Syntax.Option<?> o) {
    List<String> choices = syntax.choices(o);
    if (!choices.isEmpty()) {
      return "choices:" + String.join(" ", choices);
    }
    return o.file() != null ? "file" : "value";
  }

  private static List<String> names(Syntax<?> s) {
    List<String> names = new ArrayList<>();
    for (Syntax.Option<?> o : s.options()) {
      names.addAll(o.names());
    }
    return names;
  }
}
