package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.format.VerityParameterException;

/**
 * The root hash a command is given, as an argument or in a file (veritysetup's --root-hash-file).
 */
public final class RootHashes {
  private RootHashes() {}

  /** The hex text from the argument or the file; exactly one of them must be given. */
  public static String text(String command, String argument, Path file) throws IOException {
    if (argument != null && file != null) {
      throw new CliException(
          ExitCode.USAGE,
          "give the root hash either as an argument or with --root-hash-file, not both");
    }
    if (file != null) {
      Checks.requireFile(file, "root hash");
      if (Files.size(file) > 4096) {
        throw new VerityParameterException(file + ": too large for a root hash file");
      }
      try {
        return Files.readString(file).strip();
      } catch (CharacterCodingException e) { // "Input length = 1" says nothing
        throw new VerityParameterException(
            file + ": not text (expected: the root hash in hex, or an identity)");
      }
    }
    if (argument == null) {
      throw new CliException(ExitCode.USAGE, command + " needs ROOT_HASH or --root-hash-file");
    }
    return argument;
  }
}
