package org.jverity.cli.verity;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.HashSet;
import java.util.Set;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionListener;

/**
 * What {@code read} says when a block does not verify. A read meets the first failure on its way
 * and knows nothing of the rest, so before blaming that block it looks a little further:
 *
 * <ul>
 *   <li>the top hash block against the root hash: a wrong root hash, or wrong parameters, is said
 *       so, with verify's exit code, rather than "hash block 1 is corrupted" ({@link
 *       RootMismatch});
 *   <li>a data block against a sample of the others: a hash file made for other data is said in one
 *       line with the counts ({@link DataMismatch});
 *   <li>otherwise the block is named by number and position ({@link BlockNames}).
 * </ul>
 *
 * <p>Thread-safe: under {@code --ignore-corruption} the listener hears from every hashing thread.
 */
public final class ReadDiagnosis {
  private final VerityImage image; // for a sample of the data: its devices, as opened
  private final VerityParams params;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final byte[] rootHash;
  private final int topLevel; // -1 without hash levels

  // --ignore-corruption: what was said, guarded by this
  private final Set<String> named = new HashSet<>(); // blocks named so far
  private long unnamed; // distinct corruptions past the first Corruption.MAX_REPORTED
  private boolean dataSampled; // the first data corruption was met, and the rest sampled
  private boolean dataExplained; // the data as a whole was blamed: no line per data block
  private boolean rootExplained; // the root hash (or parameters) was blamed: no line for the top

  public ReadDiagnosis(VerityImage image) {
    this.image = image;
    this.params = image.trusted().params();
    this.data = image.data();
    this.hash = image.hash();
    this.rootHash = image.trusted().rootHash().clone();
    this.topLevel = MerkleLayout.dmVerity(params).levels() - 1;
  }

  /** The failure {@code e} stopped the read at, as one line with its exit code. */
  public CliException explain(CorruptBlockException e) throws IOException {
    if (e.area() == Area.HASH && e.level() == topLevel) {
      RootMismatch m =
          RootMismatch.examine(params, data, hash, rootHash, Math.max(0, e.dataBlock()));
      switch (m.verdict()) {
        case WRONG_ROOT_HASH -> {
          return new CliException(ExitCode.ROOT_HASH_MISMATCH, wrongRoot(m));
        }
        case WRONG_PARAMETERS -> {
          return new CliException(ExitCode.WRONG_PARAMETERS, WRONG_PARAMETERS);
        }
        case TOP_BLOCK_CORRUPT -> {} // named below, as any corrupted block
      }
    }
    if (e.area() == Area.DATA && topLevel < 0) {
      return new CliException(ExitCode.ROOT_HASH_MISMATCH, ONE_BLOCK);
    }
    if (e.area() == Area.DATA) {
      DataMismatch d = DataMismatch.sample(image);
      if (d.foreign()) {
        return new CliException(ExitCode.CORRUPTION, d.describe());
      }
    }
    return new CliException(ExitCode.CORRUPTION, name(e) + " is corrupted");
  }

  /**
   * Under {@code --ignore-corruption}: one line per corrupted block, each block once (a hash block
   * is met again by every read below it), the first {@link Corruption.MAX_REPORTED} of them (the
   * kernel's cap too); a wrong root hash or a hash file made for other data in one line.
   */
  CorruptionListener ignoring(PrintWriter err) {
    return new CorruptionListener() {
      @Override
      public void corrupted(CorruptBlockException e) {
        String line;
        try {
          line = ignoredLine(e);
        } catch (IOException x) {
          line = name(e) + " is corrupted"; // could not look further: say what is known
        }
        if (line != null) {
          synchronized (err) {
            err.println("jverity: " + line + " (ignored)");
            err.flush();
          }
        }
      }
    };
  }

  /** After an {@code --ignore-corruption} read: the count of corrupted blocks not named. */
  synchronized void printUnnamed(PrintWriter err) {
    if (unnamed > 0) {
      err.println("jverity: ... and " + unnamed + " more corrupted blocks (ignored)");
      err.flush();
    }
  }

  /** The line for {@code e}, or null when nothing new is to be said. */
  private synchronized String ignoredLine(CorruptBlockException e) throws IOException {
    if (e.area() == Area.HASH && e.level() == topLevel) {
      if (rootExplained) {
        return null;
      }
      RootMismatch m =
          RootMismatch.examine(params, data, hash, rootHash, Math.max(0, e.dataBlock()));
      if (m.verdict() != RootMismatch.Verdict.TOP_BLOCK_CORRUPT) {
        rootExplained = true;
        return m.verdict() == RootMismatch.Verdict.WRONG_ROOT_HASH
            ? wrongRoot(m)
            : WRONG_PARAMETERS;
      }
    }
    if (e.area() == Area.DATA) {
      if (dataExplained) {
        return null;
      }
      if (!dataSampled) { // the first data block: look at the rest
        dataSampled = true;
        DataMismatch d = DataMismatch.sample(image);
        if (d.foreign()) {
          dataExplained = true;
          return d.describe();
        }
      }
    }
    String name = BlockNames.of(e, params);
    if (named.contains(name)) {
      return null;
    }
    if (named.size() >= Corruption.MAX_REPORTED) {
      unnamed++; // a block met twice past the cap is counted twice: rare, and only a count
      return null;
    }
    named.add(name);
    return source(e) + ": " + name + " is corrupted";
  }

  private String wrongRoot(RootMismatch m) {
    return "wrong root hash: the tree on "
        + hash.description()
        + " hashes to "
        + Hex.format(m.treeRoot())
        + " (its top block agrees with the blocks below it)";
  }

  private static final String WRONG_PARAMETERS =
      "root hash does not match, and no block under the top"
          + " matches its hash either: wrong salt, hash algorithm, format or block size?";

  private static final String ONE_BLOCK =
      "root hash does not match data block 0 (position 0), the only"
          + " block: a wrong root hash, salt or hash algorithm cannot be told from a damaged block";

  private String name(CorruptBlockException e) {
    return source(e) + ": " + BlockNames.of(e, params);
  }

  private String source(CorruptBlockException e) {
    return (e.area() == Area.DATA ? data : hash).description();
  }
}
