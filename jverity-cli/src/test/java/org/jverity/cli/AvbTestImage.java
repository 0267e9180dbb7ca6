package org.jverity.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.VbmetaBuilder;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.FileDevice;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.tree.ProgressListener;

/**
 * An AVB partition image made in the test as {@code avbtool add_hashtree_footer} lays it out
 * (AVB.md 4.2): the data, its sha256 tree at {@code image_size}, the FEC after it, the vbmeta
 * (signed with an AOSP test key, or unsigned) padded to 4096, and the footer block at the end.
 * Built from the library's parts (tree and FEC, descriptor, vbmeta builder, footer), so the test
 * does not depend on the command that does the same.
 *
 * @param file the partition image
 * @param imageSize the data's size: the descriptor's image_size
 * @param fecOffset where the parity starts; 0 without FEC
 * @param vbmetaOffset where the vbmeta starts
 */
record AvbTestImage(Path file, long imageSize, long fecOffset, long vbmetaOffset) {
  static final String KEY = "testkey_rsa2048.pem";
  static final String OTHER_KEY = "testkey_rsa4096.pem";

  /** Signed with {@link #KEY}, FEC with 2 roots. */
  static AvbTestImage signed(Path file) throws IOException {
    return build(file, AvbAlgorithm.SHA256_RSA2048, KEY, 2, 0);
  }

  /**
   * Makes {@code file}, which holds the data (a multiple of 4096 bytes), an AVB partition image.
   *
   * @param key one of {@link AvbTestKeys#NAMES}; null with {@link AvbAlgorithm#NONE}
   * @param roots FEC roots; 0 for none
   * @param flags the vbmeta header's flags
   */
  static AvbTestImage build(Path file, AvbAlgorithm algorithm, String key, int roots, int flags)
      throws IOException {
    long imageSize = Files.size(file);
    AvbTreeGeometry g = AvbTreeGeometry.of(imageSize, 4096, HashAlgorithm.SHA256, roots);
    byte[] salt = new byte[32];
    Arrays.fill(salt, (byte) 0x5a);
    byte[] root;
    try (FileDevice image = FileDevice.openWrite(file)) {
      root = AvbHashtree.build(image, g, salt, 0, ProgressListener.NONE);
    }
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1,
            imageSize,
            imageSize,
            g.treeSize(),
            4096,
            4096,
            roots,
            g.fecOffset(),
            g.fecSize(),
            "sha256",
            "system",
            salt,
            root,
            0);
    AvbSigner signer =
        key == null
            ? AvbSigner.NONE
            : AvbSigner.of(algorithm, AvbPublicKey.readPrivateKey(AvbTestKeys.path(key)));
    byte[] vbmeta;
    try {
      vbmeta = new VbmetaBuilder(signer).flags(flags).descriptors(List.of(d)).build();
    } catch (GeneralSecurityException e) {
      throw new IOException("signing the test vbmeta", e);
    }
    long vbmetaOffset = g.end();
    long footerBlock = vbmetaOffset + roundUp(vbmeta.length);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      write(ch, vbmetaOffset, vbmeta);
      byte[] last = new byte[AvbFooter.BLOCK];
      byte[] footer = AvbFooter.of(imageSize, vbmetaOffset, vbmeta.length).encode();
      System.arraycopy(footer, 0, last, last.length - footer.length, footer.length);
      write(ch, footerBlock, last);
    }
    return new AvbTestImage(file, imageSize, g.fecOffset(), vbmetaOffset);
  }

  /** {@code blocks} blocks of seeded pseudo-random data at {@code file}. */
  static Path data(Path file, int blocks, long seed) throws IOException {
    byte[] b = new byte[blocks * 4096];
    new SplittableRandom(seed).nextBytes(b);
    return Files.write(file, b);
  }

  /** Flips every bit of the byte at {@code offset}. */
  static void flip(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, offset);
      one.put(0, (byte) ~one.get(0));
      ch.write(one.rewind(), offset);
    }
  }

  private static void write(FileChannel ch, long at, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      ch.write(b, at + b.position());
    }
  }

  private static long roundUp(long n) {
    return (n + 4095) / 4096 * 4096;
  }
}
