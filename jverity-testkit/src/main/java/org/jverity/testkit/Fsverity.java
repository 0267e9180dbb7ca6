package org.jverity.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * fsverity-utils' {@code fsverity} as the oracle: {@code digest} makes the Merkle tree and
 * descriptor files jverity reads, and the file digest it must agree with.
 */
public final class Fsverity {
  private static final Tool TOOL = Tool.of("fsverity");

  private Fsverity() {}

  /** fsverity, for a test that runs another of its commands ({@code sign}). */
  public static Tool tool() {
    return TOOL;
  }

  /**
   * What {@code fsverity digest FILE --out-merkle-tree --out-descriptor} wrote.
   *
   * @param tree the Merkle tree, {@code FILE.merkle}
   * @param descriptor the descriptor, {@code FILE.desc}
   * @param digest the file digest as printed, {@code ALG:HEX}
   */
  public record Digest(Path tree, Path descriptor, String digest) {}

  /**
   * Digests {@code file} with {@code alg}, {@code blockSize} and {@code saltHex} (empty: no salt).
   */
  public static Digest digest(Path file, String alg, int blockSize, String saltHex) {
    Path tree = file.resolveSibling(file.getFileName() + ".merkle");
    Path desc = file.resolveSibling(file.getFileName() + ".desc");
    List<String> args =
        new ArrayList<>(
            List.of(
                "digest",
                file.toString(),
                "--hash-alg=" + alg,
                "--block-size=" + blockSize,
                "--out-merkle-tree=" + tree,
                "--out-descriptor=" + desc));
    if (!saltHex.isEmpty()) {
      args.add("--salt=" + saltHex);
    }
    String out = TOOL.check(args).out().strip();
    return new Digest(tree, desc, out.split(" ")[0]); // "sha256:HEX FILE"
  }
}
