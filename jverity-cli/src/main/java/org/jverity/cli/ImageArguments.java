package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** DATA HASH [ROOT_HASH] and --root-hash-file: what every command that checks an image is given. */
final class ImageArguments {
  @Parameters(index = "0", paramLabel = "DATA", description = "Data image.")
  Path data;

  @Parameters(index = "1", paramLabel = "HASH", description = "Hash device (may be DATA with --hash-offset).")
  Path hash;

  @Parameters(index = "2", paramLabel = "ROOT_HASH", arity = "0..1",
      description = "Root hash in hex, or the image identity (verity1:...) that format prints (or use --root-hash-file).")
  String rootHash;

  @Option(names = "--root-hash-file", paramLabel = "FILE", description = "Read the root hash (hex) or identity from FILE.")
  Path rootHashFile;

  /** Checks that the files exist and returns the root hash text (not yet parsed). */
  String check(String command) throws IOException {
    Checks.requireFile(data, "data");
    Checks.requireFile(hash, "hash");
    return RootHashes.text(command, rootHash, rootHashFile);
  }
}
