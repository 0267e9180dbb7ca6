package org.jverity.cli.serve;

import java.io.IOException;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.DataMismatch;
import org.jverity.cli.verity.ReadDiagnosis;
import org.jverity.format.VerityParams;
import org.jverity.image.VerityImage;
import org.jverity.server.ServerLog;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * Before {@code open} or {@code serve} listens: whether the export can serve anything at all. A
 * wrong root hash, wrong parameters or a hash file made for other data would fail every read with
 * "hash block 1 is corrupted"; the server refuses to start instead, with {@code verify}'s line and
 * exit code (the wording is {@link ReadDiagnosis}'s, the sample {@link DataMismatch}'s). Damage to
 * some blocks does not refuse: a server serves the blocks that verify.
 *
 * <p>What it reads, whatever the image size: the first data block's path to the root (the top hash
 * block against the root hash; {@link RootMismatch} when it fails), then {@link
 * DataMismatch#SAMPLE} data blocks in runs of {@link DataMismatch#RUN} spread over the image,
 * through readers with a small cache of their own: 33 paths of hash blocks on a 1 TiB image, a few
 * MiB of memory.
 *
 * <p>A top hash block that is damaged (its children agree with the level below, not with it) leaves
 * no block servable: refused too, unless FEC corrects it. FEC is tried only there, after the
 * diagnosis: it cannot make a wrong root hash right, and trying it on a sample of a foreign hash
 * file would cost a decoding per block. Once FEC has corrected the top block the sample is not
 * taken (its readers have no FEC, so every block would fail above the data anyway).
 *
 * <p>Under {@code --ignore-corruption} nothing is refused: the line is logged, marked ignored, as
 * {@code read --ignore-corruption} prints it. Stateless.
 */
final class StartupCheck {
  /** The first block's reader's cache: one path of hash blocks, with room to spare. */
  private static final long CACHE_BYTES = 8 << 20;

  private StartupCheck() {}

  /**
   * @param repairer the export's FEC, or {@link BlockRepairer#NONE}
   * @param ignoreZeroBlocks whether the export reads zero-digest blocks as zeros (the sample then
   *     does too: what such a block holds on the data device is never served)
   * @param ignoring whether the export runs under {@code --ignore-corruption}
   * @throws CliException naming the export, with verify's exit code, when nothing could be served
   */
  static void check(
      String export,
      VerityImage image,
      BlockRepairer repairer,
      boolean ignoreZeroBlocks,
      boolean ignoring,
      ServerLog log)
      throws IOException {
    CliException refusal = refusal(image, repairer, ignoreZeroBlocks);
    if (refusal == null) {
      return;
    }
    String line = "export " + ServerLog.display(export) + ": " + refusal.getMessage();
    if (ignoring) {
      log.line(line + " (ignored)");
      return;
    }
    throw new CliException(refusal.exitCode(), line);
  }

  /** Why no block of the image could be served, or null when blocks verify. */
  static CliException refusal(VerityImage image, BlockRepairer repairer, boolean ignoreZeroBlocks)
      throws IOException {
    VerityParams p = image.trusted().params();
    int topLevel = MerkleLayout.dmVerity(p).levels() - 1;
    CorruptBlockException first = readFirstBlock(image, BlockRepairer.NONE, ignoreZeroBlocks);
    boolean atTop =
        first != null
            && (first.area() == Area.HASH
                ? first.level() == topLevel
                : topLevel < 0); // the only block is the top
    if (atTop) {
      CliException why = new ReadDiagnosis(image).explain(first);
      // A damaged top block (or the only data block): FEC may correct it. A wrong root hash or
      // wrong parameters it cannot.
      boolean damage = why.exitCode() == ExitCode.CORRUPTION || topLevel < 0;
      if (damage
          && repairer != BlockRepairer.NONE
          && readFirstBlock(image, repairer, ignoreZeroBlocks) == null) {
        return null;
      }
      return why.exitCode() == ExitCode.CORRUPTION
          ? new CliException(
              why.exitCode(), why.getMessage() + ": no data block can verify under it")
          : why;
    }
    DataMismatch sample = DataMismatch.sample(image, ignoreZeroBlocks);
    return sample.foreign() ? new CliException(ExitCode.CORRUPTION, sample.describe()) : null;
  }

  /**
   * Data block 0 read through a reader of its own: the failure on its path, or null when it
   * verifies.
   */
  private static CorruptBlockException readFirstBlock(
      VerityImage image, BlockRepairer repairer, boolean ignoreZeroBlocks) throws IOException {
    byte[] block = new byte[image.trusted().params().dataBlockSize()];
    try (VerifiedReader r =
        image.probe(
            new HashBlockCache(CACHE_BYTES),
            ReaderOptions.DEFAULTS.withRepairer(repairer).withIgnoreZeroBlocks(ignoreZeroBlocks))) {
      r.read(0, block, 0, (int) Math.min(block.length, r.size()));
      return null;
    } catch (CorruptBlockException e) {
      return e;
    }
  }
}
