package org.jverity.fsverity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.jverity.testkit.Fsverity;

/**
 * Files for the fs-verity tests, their tree and descriptor made by the oracle, fsverity-utils'
 * {@code fsverity digest} (the test kit's {@link Fsverity}, which fails naming the package when it
 * is missing: never a silent skip).
 */
final class FsverityTool {
  private FsverityTool() {}

  /** A file, its tree and descriptor as fsverity wrote them, and the digest it printed. */
  record Made(Path file, Path tree, Path descriptor, String digest, byte[] bytes) {}

  /** Writes {@code size} seeded random bytes to {@code dir/name} and digests them. */
  static Made make(
      Path dir, String name, int size, long seed, String alg, int blockSize, String saltHex)
      throws IOException {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return digest(file, alg, blockSize, saltHex, bytes);
  }

  static Made digest(Path file, String alg, int blockSize, String saltHex, byte[] bytes) {
    Fsverity.Digest d = Fsverity.digest(file, alg, blockSize, saltHex);
    return new Made(file, d.tree(), d.descriptor(), d.digest(), bytes);
  }

  /** Flips one bit of byte {@code at} in {@code file}. */
  static void flip(Path file, long at) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[Math.toIntExact(at)] ^= 0x10;
    Files.write(file, b);
  }
}
