package org.jverity.avb.verify;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.VbmetaBuilder;
import org.jverity.avb.hashtree.AvbHashDigest;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.FileDevice;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.tree.ProgressListener;

/**
 * Builds AVB images the way avbtool lays them out, for the verification tests: {@code
 * add_hashtree_footer} and {@code add_hash_footer} without a partition size (data, tree, FEC,
 * vbmeta padded to 4096, then one block ending in the footer), and {@code make_vbmeta_image}.
 */
final class AvbFixtures {
  private AvbFixtures() {}

  /** AOSP's test key 2048 (SHA256_RSA2048): what most images here are signed with. */
  /** How the command line names the trusted key: what refusals in these tests say. */
  static final KeyOption AVB_KEY = new KeyOption("--avb-key", "none");

  static AvbSigner rsa2048() {
    return signer(AvbAlgorithm.SHA256_RSA2048, "testkey_rsa2048.pem");
  }

  /** AOSP's test key 4096 (SHA256_RSA4096): another key. */
  static AvbSigner rsa4096() {
    return signer(AvbAlgorithm.SHA256_RSA4096, "testkey_rsa4096.pem");
  }

  static AvbSigner signer(AvbAlgorithm algorithm, String key) {
    try {
      return AvbSigner.of(algorithm, AvbPublicKey.readPrivateKey(AvbTestKeys.path(key)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The key file {@code --key}/{@code --avb-key} would be given. */
  static Path keyFile(String key) {
    return AvbTestKeys.path(key);
  }

  /** avbtool's {@code generate_test_image}: byte i is {@code (start + i) & 0xff}. */
  static byte[] pattern(int size, int start) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (start + i);
    }
    return b;
  }

  /** Salt {@code 00 01 .. 1f}, AVB.md's vectors' salt. */
  static byte[] salt32() {
    return pattern(32, 0);
  }

  /** The parameters of one hashtree image. */
  record Hashtree(String name, HashAlgorithm algorithm, byte[] salt, int fecRoots, int flags) {
    static Hashtree sha256(String name, int fecRoots) {
      return new Hashtree(name, HashAlgorithm.SHA256, salt32(), fecRoots, 0);
    }
  }

  /** What a built image holds: its descriptor and where things are. */
  record Built(Path path, Descriptor descriptor, long vbmetaOffset, int vbmetaSize) {
    HashtreeDescriptor hashtree() {
      return (HashtreeDescriptor) descriptor;
    }
  }

  /**
   * {@code add_hashtree_footer} of {@code data} (a multiple of 4096 bytes) with no partition size;
   * {@code vbmeta} may add to the builder (rollback index, flags, more descriptors).
   */
  static Built hashtreeImage(
      Path file, byte[] data, Hashtree h, AvbSigner signer, UnaryOperator<VbmetaBuilder> vbmeta)
      throws IOException, GeneralSecurityException {
    Files.write(file, data);
    AvbTreeGeometry g = AvbTreeGeometry.of(data.length, 4096, h.algorithm(), h.fecRoots());
    byte[] root;
    try (FileDevice dev = FileDevice.openWrite(file)) {
      root = AvbHashtree.build(dev, g, h.salt(), 1, ProgressListener.NONE);
    }
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1,
            data.length,
            data.length,
            g.treeSize(),
            4096,
            4096,
            h.fecRoots(),
            g.fecOffset(),
            g.fecSize(),
            h.algorithm().kernelName(),
            h.name(),
            h.salt(),
            root,
            h.flags());
    return appendVbmeta(file, data.length, g.end(), d, signer, vbmeta);
  }

  /** {@code add_hash_footer} of {@code data} (any size) with no partition size. */
  static Built hashImage(
      Path file,
      byte[] data,
      String name,
      HashAlgorithm algorithm,
      AvbSigner signer,
      UnaryOperator<VbmetaBuilder> vbmeta)
      throws IOException, GeneralSecurityException {
    Files.write(file, data);
    byte[] digest;
    try (FileDevice dev = FileDevice.openRead(file)) {
      digest = AvbHashDigest.compute(dev, data.length, algorithm, salt32());
    }
    HashDescriptor d =
        new HashDescriptor(data.length, algorithm.kernelName(), name, salt32(), digest, 0);
    return appendVbmeta(file, data.length, roundUp(data.length), d, signer, vbmeta);
  }

  /** {@code make_vbmeta_image}: the blob alone, unpadded. */
  static Path vbmetaImage(
      Path file,
      AvbSigner signer,
      List<? extends Descriptor> descriptors,
      UnaryOperator<VbmetaBuilder> vbmeta)
      throws IOException, GeneralSecurityException {
    Files.write(file, vbmeta.apply(new VbmetaBuilder(signer).descriptors(descriptors)).build());
    return file;
  }

  private static Built appendVbmeta(
      Path file,
      long originalSize,
      long vbmetaOffset,
      Descriptor own,
      AvbSigner signer,
      UnaryOperator<VbmetaBuilder> vbmeta)
      throws IOException, GeneralSecurityException {
    List<Descriptor> descriptors = new ArrayList<>();
    descriptors.add(own);
    VbmetaBuilder b = vbmeta.apply(new VbmetaBuilder(signer).descriptors(descriptors));
    byte[] blob = b.build();
    long footerBlock = vbmetaOffset + roundUp(blob.length);
    try (FileDevice dev = FileDevice.openWrite(file)) {
      dev.writeFully(vbmetaOffset, ByteBuffer.wrap(blob));
      byte[] last = new byte[AvbFooter.BLOCK];
      byte[] footer = AvbFooter.of(originalSize, vbmetaOffset, blob.length).encode();
      System.arraycopy(footer, 0, last, last.length - footer.length, footer.length);
      dev.writeFully(footerBlock, ByteBuffer.wrap(last));
      dev.flush();
    }
    return new Built(file, own, vbmetaOffset, blob.length);
  }

  static long roundUp(long n) {
    return AvbTreeGeometry.roundUp(n, AvbTreeGeometry.PAD);
  }

  /** Flips every bit of the byte at {@code offset}. */
  static void flip(Path file, long offset) throws IOException {
    try (FileDevice dev = FileDevice.openWrite(file)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      dev.readFully(offset, b);
      b.put(0, (byte) ~b.get(0)).rewind();
      dev.writeFully(offset, b);
      dev.flush();
    }
  }
}
