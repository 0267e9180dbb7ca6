package org.jverity.cli.serve;

import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.syntax.IoClassName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.verity.CorruptionOptions;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.verity.RootHashSignatureOptions;
import org.jverity.cli.verity.VerityOptions;
import org.jverity.verify.IoClass;

/**
 * The settings of one export besides its image's files and root hash: the tree options, the
 * root-hash signature, what corruption does, the served description and I/O class, FEC, and how its
 * remote devices are reached and cached. Declared once: {@code open} takes them as options, {@code
 * serve} as the keys of an export's section ({@link #KEYS}). Filled by the parser, then read once.
 */
final class ExportOptions {
  final VerityOptions tree = new VerityOptions();
  final RootHashSignatureOptions signature = new RootHashSignatureOptions();
  final CorruptionOptions corruption = new CorruptionOptions();
  String description = "";
  IoClass ioClass = IoClass.BEST_EFFORT;
  final FecOptions fec = new FecOptions();
  final RemoteArguments remote = new RemoteArguments();

  /** How the image is checked: the tree, its signature, what a corrupted block does. */
  static final Syntax<ExportOptions> CHECKS =
      Syntax.<ExportOptions>group()
          .include(VerityOptions.CHECK, e -> e.tree)
          .include(RootHashSignatureOptions.SYNTAX, e -> e.signature)
          .include(CorruptionOptions.SYNTAX, e -> e.corruption);

  /** How clients see it. */
  static final Syntax<ExportOptions> SERVED =
      Syntax.<ExportOptions>group()
          .option(
              "--description",
              "TEXT",
              "Description shown to clients (nbdinfo).",
              (e, v) -> e.description = v)
          .option(
              "--io-class",
              "CLASS",
              "I/O class of the export's reads: none, real-time, best-effort (default) or idle.",
              (e, v) -> e.ioClass = IoClassName.parse(v))
          .choices(IoClassName.NAMES);

  /** Where its Reed-Solomon parity is. */
  static final Syntax<ExportOptions> FEC =
      Syntax.<ExportOptions>group().include(FecOptions.SYNTAX, e -> e.fec);

  /** How its devices at a URL are reached and cached (per export; [generic] gives defaults). */
  static final Syntax<ExportOptions> REMOTE =
      Syntax.<ExportOptions>group().include(RemoteArguments.SYNTAX, e -> e.remote);

  /**
   * All of them, as a {@code serve} export section takes them, in the order its help lists them.
   */
  static final Syntax<ExportOptions> KEYS =
      Syntax.<ExportOptions>group()
          .include(RootHashSignatureOptions.SYNTAX, e -> e.signature)
          .include(SERVED, e -> e)
          .include(VerityOptions.CHECK, e -> e.tree)
          .include(CorruptionOptions.SYNTAX, e -> e.corruption)
          .include(FEC, e -> e)
          .include(REMOTE, e -> e);
}
