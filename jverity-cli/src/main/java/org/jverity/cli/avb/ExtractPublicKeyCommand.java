package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.ExtractPublicKey;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb extract_public_key}: avbtool's. */
public final class ExtractPublicKeyCommand implements Command {
  Path key;
  Path output;

  public static final Syntax<ExtractPublicKeyCommand> SYNTAX =
      Syntax.command(
              "avb extract_public_key",
              "Write the AVB public-key blob of a key (what --chain_partition and avb_custom_key"
                  + " take), as avbtool does.",
              ExtractPublicKeyCommand::new)
          .requiredOption(
              "--key", "KEY", "PEM private or public key.", (c, v) -> c.key = FileName.parse(v))
          .namesAFile()
          .requiredOption(
              "--output", "FILE", "The blob to write.", (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .abbreviations()
          .example(
              "Write system_key.pem's public key in AVB's format, as a device's chain descriptor holds it:",
              "jverity avb extract_public_key --key system_key.pem --output system_key.avbpubkey");

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireGiven(key, "--key");
    Outputs.requireGiven(output, "--output");
    Checks.requireFile(key, "key");
    Outputs.check("--key", key, output, "--output", List.of());
    new ExtractPublicKey(key, output).apply();
    return ExitCode.OK;
  }
}
