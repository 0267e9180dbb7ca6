package org.jverity.fsverity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * fsverity-utils' {@code fsverity digest} as the oracle: it makes the Merkle tree and descriptor
 * files jverity reads. Missing, it fails the test, naming the package: never a silent skip.
 */
final class FsverityTool {
  private FsverityTool() {}

  /** A file, its tree and descriptor as fsverity wrote them, and the digest it printed. */
  record Made(Path file, Path tree, Path descriptor, String digest, byte[] bytes) {}

  /** Writes {@code size} seeded random bytes to {@code dir/name} and digests them. */
  static Made make(Path dir, String name, int size, long seed, String alg, int blockSize, String saltHex)
      throws IOException, InterruptedException {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return digest(file, alg, blockSize, saltHex, bytes);
  }

  static Made digest(Path file, String alg, int blockSize, String saltHex, byte[] bytes)
      throws IOException, InterruptedException {
    Path tree = file.resolveSibling(file.getFileName() + ".merkle");
    Path desc = file.resolveSibling(file.getFileName() + ".desc");
    List<String> cmd = new ArrayList<>(List.of("fsverity", "digest", file.toString(), "--hash-alg=" + alg,
        "--block-size=" + blockSize, "--out-merkle-tree=" + tree, "--out-descriptor=" + desc));
    if (!saltHex.isEmpty()) {
      cmd.add("--salt=" + saltHex);
    }
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError("fsverity (fsverity-utils) is needed by this test: install the Debian package"
          + " 'fsverity' (apt-get install fsverity): " + e.getMessage(), e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (p.waitFor() != 0) {
      throw new AssertionError(String.join(" ", cmd) + ": " + out);
    }
    return new Made(file, tree, desc, out.split(" ")[0], bytes); // "sha256:HEX FILE"
  }

  /** Flips one bit of byte {@code at} in {@code file}. */
  static void flip(Path file, long at) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[Math.toIntExact(at)] ^= 0x10;
    Files.write(file, b);
  }
}
