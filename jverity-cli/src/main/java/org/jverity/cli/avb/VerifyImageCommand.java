package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.verify.AvbVerifier;
import org.jverity.avb.verify.AvbVerifyOptions;
import org.jverity.avb.verify.ExpectedChain;
import org.jverity.avb.verify.VerifyProgress;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;

/**
 * {@code jverity avb verify_image}: avbtool's options and lines, libavb's strictness (AvbVerifier):
 * chained images must be signed by their chain descriptor's key, every digest and tree is checked
 * against the image given, FEC too.
 */
public final class VerifyImageCommand implements Command {
  Path image;
  Path key;
  final List<String> expectedChains = new ArrayList<>();
  boolean followChainPartitions;
  boolean acceptZeroedHashtree;
  boolean acceptUnsigned;
  final List<String> partitions = new ArrayList<>();
  Integer threads;

  public static final Syntax<VerifyImageCommand> SYNTAX =
      Syntax.command(
              "avb verify_image",
              "Verify an image's vbmeta, its signature and every descriptor against the image, as a"
                  + " locked device would (stricter than avbtool: chained keys, flags, rollback"
                  + " rules, FEC).",
              VerifyImageCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The image (a vbmeta image, or one with a footer).",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .option(
              "--key",
              "KEY",
              "The key the top-level vbmeta must be signed by (PEM, or an AVB public-key blob);"
                  + " default: the one it embeds.",
              (c, v) -> c.key = FileName.parse(v))
          .namesAFile()
          .option(
              names("--expected_chain_partition"),
              "PART_NAME:ROLLBACK_SLOT:KEY_PATH",
              "What a chain descriptor must say (repeatable).",
              (c, v) -> c.expectedChains.add(v))
          .flag(
              names("--follow_chain_partitions"),
              "Verify the chained images too (found beside IMAGE as NAME.img, or by --partition).",
              c -> c.followChainPartitions = true)
          .flag(
              names("--accept_zeroed_hashtree"),
              "Accept a tree zeroed by zero_hashtree.",
              c -> c.acceptZeroedHashtree = true)
          .flag(
              names("--accept_unsigned"),
              "Accept an unsigned (NONE) vbmeta, as an unlocked device does.",
              c -> c.acceptUnsigned = true)
          .option(
              "--partition",
              "NAME:FILE",
              "The file holding partition NAME (repeatable; default: NAME plus IMAGE's extension,"
                  + " beside IMAGE).",
              (c, v) -> c.partitions.add(v))
          .option(
              "--threads",
              "N",
              "Hashing threads (default: one per core).",
              (c, v) -> c.threads = AvbNumber.parseInt(v))
          .abbreviations(List.of("--accept_unsigned", "--partition", "--threads"))
          .example(
              "Check system.img's vbmeta, its signature by system_key.pem and its tree, as a locked device would:",
              "jverity avb verify_image --image system.img --key system_key.pem");

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    AvbVerifyOptions.Builder b =
        AvbVerifyOptions.builder()
            .followChains(followChainPartitions)
            .acceptZeroedHashtree(acceptZeroedHashtree)
            .acceptUnsigned(acceptUnsigned)
            .threads(Outputs.threads(threads))
            .progress(VerifyImageCommand::bar);
    if (key != null) {
      Checks.requireFile(key, "key");
      b.trustedKey(AvbPublicKey.readBlob(key), key.toString());
    }
    for (String spec : expectedChains) {
      b.expectChain(ExpectedChain.parse(spec));
    }
    for (String p : partitions) {
      int colon = p.indexOf(':');
      if (colon <= 0 || colon == p.length() - 1) {
        throw new CliException(
            ExitCode.INVALID_PARAMETER, "--partition: " + p + " (expected: NAME:FILE)");
      }
      b.image(p.substring(0, colon), FileName.parse(p.substring(colon + 1)));
    }
    new AvbVerifier(b.build())
        .verify(
            image,
            line -> {
              io.out().println(line);
              io.out().flush();
            });
    return ExitCode.OK;
  }

  /** A bar on a terminal for one partition's hashing, erased when it ends (its line follows). */
  private static VerifyProgress.Step bar(String what, long bytes) {
    ProgressBar bar = ProgressBar.start("verify_image " + what, bytes, System.err);
    return new VerifyProgress.Step() {
      @Override
      public void advanced(long n) {
        bar.advanced(n);
      }

      @Override
      public void close() {
        bar.close();
      }
    };
  }
}
