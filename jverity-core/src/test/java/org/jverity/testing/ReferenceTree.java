package org.jverity.testing;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParams;

/**
 * A deliberately naive dm-verity tree, written straight from the kernel's verity.rst and
 * cryptsetup's hash_levels(): whole levels in memory, one thread, no shared code with the product.
 * Used as an independent oracle in property tests.
 */
public final class ReferenceTree {
  /** The tree bytes (top level first, as on disk) and the root hash. */
  public record Result(byte[] tree, byte[] root) {}

  private ReferenceTree() {}

  public static Result build(VerityParams p, byte[] data) throws Exception {
    MessageDigest md = MessageDigest.getInstance(p.hashAlgorithm().jcaName());
    int d = md.getDigestLength();
    int fanout = Integer.highestOneBit(p.hashBlockSize() / d);
    int slot = p.hashFormat() == HashFormat.NORMAL ? p.hashBlockSize() / fanout : d;
    // Digests of the blocks of the current level's input.
    List<byte[]> digests = new ArrayList<>();
    for (long i = 0; i < p.dataBlocks(); i++) {
      int off = Math.toIntExact(i * p.dataBlockSize());
      digests.add(hash(md, p, Arrays.copyOfRange(data, off, off + p.dataBlockSize())));
    }
    List<byte[]> levels = new ArrayList<>(); // level 0 first
    while (digests.size() > 1) {
      ByteArrayOutputStream level = new ByteArrayOutputStream();
      List<byte[]> next = new ArrayList<>();
      for (int first = 0; first < digests.size(); first += fanout) {
        byte[] block = new byte[p.hashBlockSize()];
        for (int s = 0; s < fanout && first + s < digests.size(); s++) {
          System.arraycopy(digests.get(first + s), 0, block, s * slot, d);
        }
        level.writeBytes(block);
        next.add(hash(md, p, block));
      }
      levels.add(level.toByteArray());
      digests = next;
    }
    ByteArrayOutputStream tree = new ByteArrayOutputStream();
    for (int i = levels.size() - 1; i >= 0; i--) {
      tree.writeBytes(levels.get(i));
    }
    return new Result(tree.toByteArray(), digests.get(0));
  }

  private static byte[] hash(MessageDigest md, VerityParams p, byte[] block) {
    if (p.hashFormat() == HashFormat.NORMAL) {
      md.update(p.salt());
      md.update(block);
    } else {
      md.update(block);
      md.update(p.salt());
    }
    return md.digest();
  }
}
