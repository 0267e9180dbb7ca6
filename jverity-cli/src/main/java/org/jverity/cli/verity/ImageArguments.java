package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/** DATA HASH [ROOT_HASH] and --root-hash-file: what every command that checks an image is given. */
final class ImageArguments {
  Path data;
  Path hash;
  String rootHash;
  Path rootHashFile;

  static final Syntax<ImageArguments> SYNTAX =
      Syntax.<ImageArguments>group()
          .parameter("DATA", "Data image.", (a, v) -> a.data = FileName.parse(v))
          .parameter(
              "HASH",
              "Hash device (may be DATA with --hash-offset).",
              (a, v) -> a.hash = FileName.parse(v))
          .optionalParameter(
              "ROOT_HASH",
              "Root hash in hex, or the image identity (verity1:...) that format prints"
                  + " (or use --root-hash-file).",
              (a, v) -> a.rootHash = v)
          .option(
              "--root-hash-file",
              "FILE",
              "Read the root hash (hex) or identity from FILE.",
              (a, v) -> a.rootHashFile = FileName.parse(v));

  /** Checks that the files exist and returns the root hash text (not yet parsed). */
  String check(String command) throws IOException {
    Checks.requireFile(data, "data");
    Checks.requireFile(hash, "hash");
    return RootHashes.text(command, rootHash, rootHashFile);
  }
}
