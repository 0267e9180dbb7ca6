package org.jverity.cli.doc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.CommandTable;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.command.ExitCodeRule;
import org.jverity.cli.serve.ServeConfig;
import org.jverity.cli.syntax.Syntax;

/**
 * The manual pages, by file name: jverity(8), jverity-COMMAND(8) for every command (a group's, as
 * avb's, covers its subcommands) and jverity-serve.conf(5).
 */
final class ManPages {
  private ManPages() {}

  /** The peer page each command mirrors, for SEE ALSO; a group names its own. */
  private static String peer(String command) {
    if (ExitCodeRule.VERITYSETUP_VERBS.contains(command)) {
      return "veritysetup(8)";
    }
    return switch (command) {
      case "digest", "sign", "verify-sig", "cat" -> "fsverity(1)";
      case "open", "serve", "status", "close", "reload" -> "nbdkit(1)";
      default -> null;
    };
  }

  /** The config file's image keys: they are {@code open}'s parameters, not its options. */
  private static final Map<String, String> IMAGE_KEYS =
      Map.of(
          "data", "The data device: a file, or an http(s):// or s3:// URL (as open's DATA).",
          "hash", "The hash device (as open's HASH).",
          "root-hash", "The root hash, in hex (as open's ROOT_HASH).",
          "root-hash-file", "A file holding the root hash (as open's --root-hash-file).",
          "avb-key",
              "For an AVB partition image, instead of hash and the root hash: the public key its"
                  + " vbmeta must be signed with, or none.",
          "ddi",
              "A Discoverable Disk Image (a file or URL), instead of data, hash and the root hash:"
                  + " its root or usr partition is served, verified against its verity partition,"
                  + " the root hash from its signature partition or root-hash-file (as open IMAGE.raw"
                  + " NAME).");

  /** jverity-serve.conf(5)'s example: a config as a user writes one (run by a test). */
  static final String SERVE_CONF_EXAMPLE =
      """
      [generic]
      port = 10809
      max-connections = 16

      [disk]
      data = data.img
      hash = data.hash
      root-hash-file = root.hex
      """;

  static Map<String, String> all(String date) {
    String version = CommandTable.version();
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("man8/jverity.8", overview(date, version));
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      pages.put("man8/jverity-" + c.name() + ".8", command(c, date, version));
    }
    pages.put("man5/jverity-serve.conf.5", serveConf(date, version));
    return pages;
  }

  private static String overview(String date, String version) {
    ManPage m = new ManPage("jverity", 8, date, version);
    m.section("NAME")
        .raw("jverity \\- dm\\-verity, fs\\-verity and AVB images: made, checked and served");
    m.section("SYNOPSIS")
        .raw(".B jverity\n[\\fIOPTION\\fR...] \\fICOMMAND\\fR [\\fIARGUMENTS\\fR]");
    m.section("DESCRIPTION")
        .paragraph(
            "jverity formats, verifies and dumps dm-verity hash trees byte-identically to"
                + " veritysetup, computes fs-verity digests and signatures like fsverity-utils,"
                + " builds and checks Android Verified Boot images like avbtool, and serves"
                + " verified images as disks over NBD. Each command has its own page:");
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      m.item("\\fB" + Roff.literal(c.name()) + "\\fR", c.summary());
      m.raw("See\n.BR " + Roff.literal("jverity-" + c.name()) + " (8).");
    }
    m.section("OPTIONS").paragraph("Global options, before or after the command:");
    m.options(CommandTable.globalOptions());
    m.section("RETURN CODES")
        .paragraph(
            "veritysetup's exit codes on veritysetup's commands ("
                + String.join(", ", new java.util.TreeSet<>(ExitCodeRule.VERITYSETUP_VERBS))
                + "), jverity's detailed ones on the others; each command's page lists its own.");
    List<String> see = new ArrayList<>();
    for (Syntax<? extends Command> c : CommandTable.commands()) {
      see.add("jverity-" + c.name() + "(8)");
    }
    see.addAll(List.of("jverity-serve.conf(5)", "veritysetup(8)", "fsverity(1)"));
    m.seeAlso(see);
    return m.text();
  }

  /** The group {@code c} is (avb), or null when it is a command alone. */
  private static CommandGroup group(Syntax<? extends Command> c) {
    for (CommandGroup g : CommandTable.subcommandGroups()) {
      if (g.name().equals(c.name())) {
        return g;
      }
    }
    return null;
  }

  private static String command(Syntax<? extends Command> c, String date, String version) {
    ManPage m = new ManPage("jverity-" + c.name(), 8, date, version);
    m.section("NAME")
        .raw(
            Roff.literal("jverity-" + c.name()) + " \\-\n" + Roff.text(firstSentence(c.summary())));
    m.section("SYNOPSIS");
    CommandGroup group = group(c);
    if (group != null) { // as its --usage: "jverity avb SUBCOMMAND [OPTION...]"
      m.raw(
          ".B jverity " + Roff.literal(group.name()) + "\n\\fISUBCOMMAND\\fR [\\fIOPTION\\fR...]");
    } else {
      m.synopsis("jverity " + c.name(), c);
    }
    m.section("DESCRIPTION").paragraph(c.summary());
    m.parameters(c);
    if (group != null) {
      m.section("SUBCOMMANDS");
      for (Syntax<? extends Command> s : group.subcommands().all()) {
        m.subsection(s.name());
        m.synopsis("jverity " + s.name(), s); // a subcommand's name is "avb NAME"
        m.paragraph(s.summary());
        m.parameters(s);
        m.options(s);
      }
    } else if (!c.options().isEmpty()) {
      m.section("OPTIONS");
      m.options(c);
    }
    m.section("GLOBAL OPTIONS");
    m.options(CommandTable.globalOptions());
    m.returnCodes(c.name());
    List<Syntax.Example> examples = new ArrayList<>(c.examples());
    if (group != null) {
      for (Syntax<? extends Command> s : group.subcommands().all()) {
        examples.addAll(s.examples());
      }
    }
    if (!examples.isEmpty()) {
      m.examples(examples);
    }
    List<String> see = new ArrayList<>(List.of("jverity(8)"));
    if (c.name().equals("serve")) {
      see.add("jverity-serve.conf(5)");
    }
    String peer = group != null ? group.peer() : peer(c.name());
    if (peer != null) {
      see.add(peer);
    }
    m.seeAlso(see);
    return m.text();
  }

  private static String serveConf(String date, String version) {
    ManPage m = new ManPage("jverity-serve.conf", 5, date, version);
    m.section("NAME").raw("jverity\\-serve.conf \\- the exports jverity serve serves");
    m.section("SYNOPSIS").raw(".B jverity serve\n\\fICONFIG\\fR");
    m.section("DESCRIPTION")
        .paragraph(
            "An INI file: a [generic] section for the server, then one section per export, named"
                + " by it. A key is given once per section, as key = value; lines starting with #"
                + " or ; are comments. The keys are the long options of jverity-open(8) without"
                + " their dashes (hash-algorithm for --hash), and flags are given as key = true."
                + " Relative paths are relative to the config file's directory; URLs are taken as"
                + " they are. A config that does not parse is refused naming file:line and the key.");
    m.section("[GENERIC]");
    keys(m, ServeConfig.GENERIC_KEYS, ServeConfig.genericKeys());
    m.section("EXPORT SECTIONS");
    keys(m, ServeConfig.EXPORT_KEYS, ServeConfig.exportKeys(), ServeConfig.ddiKeys());
    m.section("EXAMPLE")
        .paragraph(
            "One export, disk: data.img verified against data.hash and the root hash in root.hex,"
                + " as jverity format data.img data.hash --root-hash-file root.hex made them:");
    m.display(SERVE_CONF_EXAMPLE.lines().map(Roff::unfilled).toList());
    m.paragraph("jverity-serve(8)'s examples serve it.");
    m.seeAlso(List.of("jverity-serve(8)", "jverity-open(8)", "jverity(8)"));
    return m.text();
  }

  private static void keys(ManPage m, List<String> keys, Syntax<?>... declared) {
    for (String k : keys) {
      String help = IMAGE_KEYS.get(k);
      for (Syntax<?> d : declared) {
        for (Syntax.Option<?> o : d.options()) {
          if (k.equals(o.key())) {
            help = o.help();
          }
        }
      }
      m.item(
          "\\fB" + Roff.literal(k) + "\\fR", help == null ? "As jverity-open(8)'s option." : help);
    }
  }

  private static String firstSentence(String s) {
    int dot = s.indexOf(". ");
    return dot < 0 ? (s.endsWith(".") ? s.substring(0, s.length() - 1) : s) : s.substring(0, dot);
  }
}
