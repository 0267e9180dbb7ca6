package org.jverity.avb.verify;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.SparseImage;
import org.jverity.avb.VbmetaHeader;
import org.jverity.avb.VbmetaImage;
import org.jverity.avb.hashtree.AvbHashDigest;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;

/**
 * {@code verify_image}, as strict as libavb on a locked device rather than as avbtool: the output
 * lines are avbtool's, but every chained image must be signed by the key its chain descriptor names
 * (avbtool accepts any key, and applies {@code --key} to chained images), chained images must have
 * flags 0 and no chains of their own (the rollback location in their header is not read, as libavb
 * does not: the chain descriptor's counts), chain locations must be distinct and non-zero, rollback
 * indexes must not be below the stored ones, hash descriptors must use sha256 or sha512, and the
 * top-level image's own descriptors are checked against the image given (avbtool reads {@code
 * <partition_name>.img} beside it). Trees are checked block by block and their FEC re-encoded and
 * compared; a corruption says what FEC could repair.
 *
 * <p>Each refusal is an {@link AvbVerificationException} whose message says, in one line, why a
 * device would refuse the image; the lines printed before it are what was verified. An image libavb
 * cannot even parse (a footer, vbmeta header or descriptor out of its rules) is an {@link
 * AvbFormatException}, also one line naming the file. One instance may verify any number of images,
 * one at a time or at once.
 */
public final class AvbVerifier {
  /** libavb's {@code MAX_NUMBER_OF_VBMETA_IMAGES}: the main vbmeta and its chains. */
  public static final int MAX_VBMETA_IMAGES = 32;

  /** libavb's {@code MAX_NUMBER_OF_LOADED_PARTITIONS}: the partitions hash descriptors load. */
  public static final int MAX_LOADED_PARTITIONS = 32;

  /** libavb's {@code AVB_MAX_NUMBER_OF_ROLLBACK_INDEX_LOCATIONS}. */
  public static final int MAX_ROLLBACK_INDEX_LOCATIONS = 32;

  private final AvbVerifyOptions options;

  public AvbVerifier(AvbVerifyOptions options) {
    this.options = options;
  }

  /** Verifies {@code image} and returns the lines avbtool prints on success. */
  public List<String> verify(Path image) throws IOException {
    List<String> lines = new ArrayList<>();
    verify(image, lines::add);
    return lines;
  }

  /**
   * Verifies {@code image}, each line handed to {@code out} as soon as what it says was checked.
   *
   * @throws AvbVerificationException the first reason a device would refuse the image
   */
  public void verify(Path image, Consumer<String> out) throws IOException {
    try (Run run = new Run(image, out)) {
      run.main();
    }
  }

  /** One image loaded: where it is, its footer and its vbmeta. */
  private record Loaded(
      Path path,
      String display,
      BlockDevice device,
      Optional<AvbFooter> footer,
      VbmetaImage vbmeta,
      boolean signed,
      String ownName) {

    /** Where this image's tree and FEC must end: its vbmeta, or its end without a footer. */
    long metadataStart() throws IOException {
      return footer.isPresent() ? footer.get().vbmetaOffset() : device.size();
    }
  }

  /** One verification: what it opened, and the counts libavb limits. */
  private final class Run implements AutoCloseable {
    private final Path top;
    private final String extension;
    private final Consumer<String> out;
    private final Map<String, PartitionFile> opened = new HashMap<>();
    private final List<BlockDevice> toClose = new ArrayList<>();
    private final Set<Path> visited = new HashSet<>();
    private int vbmetaImages;
    private int loadedPartitions;

    Run(Path top, Consumer<String> out) {
      this.top = top;
      this.out = out;
      String name = top.getFileName() == null ? "" : top.getFileName().toString();
      int dot = name.lastIndexOf('.');
      this.extension = dot > 0 ? name.substring(dot) : ""; // os.path.splitext, as avbtool
    }

    void main() throws IOException {
      String display = top.toString();
      byte[] trusted = options.trustedKey();
      out.accept(
          "Verifying image "
              + display
              + (trusted != null
                  ? " using key at " + options.trustedKeyName()
                  : " using embedded public key"));
      Loaded main = load(top, display, null);
      if (trusted != null && !main.signed()) { // avbtool: "Embedded public key does not match"
        throw new AvbVerificationException(
            "vbmeta of "
                + display
                + " is not signed (algorithm NONE), so not by the --key given (sha1 "
                + AvbPublicKey.sha1(trusted)
                + ")");
      }
      if (trusted != null && !MessageDigest.isEqual(trusted, publicKey(main))) {
        throw VbmetaTrust.untrustedKey(display, publicKey(main), trusted, "--key");
      }
      succeeded(main);
      VbmetaHeader header = main.vbmeta().header();
      VbmetaTrust.requireVerificationEnabled(display, header);
      RollbackRules.checkIndex(
          display,
          header.rollbackIndexLocation(),
          header.rollbackIndex(),
          options.rollbackIndexes());
      RollbackRules.checkChains(main.display(), main.vbmeta());
      for (Descriptor d : main.vbmeta().descriptors()) {
        switch (d) {
          case HashDescriptor h -> verifyHash(main, h);
          case HashtreeDescriptor h -> verifyHashtree(main, h);
          case ChainPartitionDescriptor c -> verifyChain(main, c);
          default -> {} // properties, cmdlines, unknown tags: nothing to check against data
        }
      }
    }

    /**
     * Opens and loads {@code path}: footer, vbmeta (bounded reads), signature checked with the
     * embedded key; an unsigned vbmeta is refused unless accepted.
     *
     * @param chainName the chain descriptor's partition name for a chained image, else null
     */
    private Loaded load(Path path, String display, String chainName) throws IOException {
      if (++vbmetaImages > MAX_VBMETA_IMAGES) {
        throw new AvbVerificationException(
            display
                + ": more than "
                + MAX_VBMETA_IMAGES
                + " vbmeta images (a device refuses them: 'Too many vbmeta images')");
      }
      Path real = path.toRealPath();
      if (!visited.add(real)) {
        throw new AvbVerificationException(
            display + ": chained again (" + real + " was verified already): the chain loops");
      }
      BlockDevice device = BlockDevices.openRead(path);
      toClose.add(device);
      Optional<AvbFooter> footer;
      VbmetaImage vbmeta;
      if (SparseImage.is(device)) { // its last chunk may end with the footer, at wrong offsets
        throw new AvbFormatException(SparseImage.refusal(display));
      }
      footer = AvbFooter.read(device);
      try {
        vbmeta = VbmetaImage.read(device, footer.orElse(null));
      } catch (AvbFormatException e) {
        if (footer.isPresent()) {
          throw e;
        }
        throw new AvbFormatException(
            display
                + ": no AVB footer (its last 64 bytes do not start with AVBf), and no vbmeta image"
                + " at its start either ("
                + withoutPrefix(e.getMessage(), device.description() + ": ")
                + ")");
      }
      boolean signed = VbmetaTrust.verifySignature(display, vbmeta);
      if (!signed && !options.acceptUnsigned()) {
        throw VbmetaTrust.unsigned(display, "only an unlocked device boots it");
      }
      String own =
          chainName != null ? chainName : footer.isPresent() ? firstDataName(vbmeta) : null;
      return new Loaded(path, display, device, footer, vbmeta, signed, own);
    }

    /** avbtool's line once the vbmeta's signature (and key) checked out. */
    private void succeeded(Loaded image) {
      out.accept(
          "vbmeta: Successfully verified "
              + (image.footer().isPresent() ? "footer and " : "")
              + image.vbmeta().algorithm()
              + " vbmeta struct in "
              + image.display());
    }

    private void verifyChain(Loaded main, ChainPartitionDescriptor c) throws IOException {
      String name = c.partitionName();
      ExpectedChain expected = options.expectedChains().get(name);
      if (expected == null && options.followChains()) {
        out.accept(
            name
                + ": Chained but ROLLBACK_SLOT (which is "
                + c.rollbackIndexLocation()
                + ") and KEY (which has sha1 "
                + AvbPublicKey.sha1(c.publicKey())
                + ") not specified");
      } else if (expected == null) {
        throw new AvbVerificationException(
            name
                + ": no expected chain partition (give it with --expected_chain_partition, or"
                + " --follow_chain_partitions)");
      } else {
        if (expected.rollbackIndexLocation() != c.rollbackIndexLocation()) {
          throw new AvbVerificationException(
              name
                  + ": expected rollback_index_location "
                  + expected.rollbackIndexLocation()
                  + " does not match "
                  + c.rollbackIndexLocation()
                  + " in the chain descriptor of "
                  + main.display());
        }
        if (!expected.keyIs(c.publicKey())) {
          throw new AvbVerificationException(
              name
                  + ": the chain descriptor of "
                  + main.display()
                  + " names key sha1 "
                  + AvbPublicKey.sha1(c.publicKey())
                  + ", not the expected sha1 "
                  + AvbPublicKey.sha1(expected.publicKey()));
        }
        out.accept(
            name + ": Successfully verified chain partition descriptor matches expected data");
      }
      if (options.followChains()) {
        out.accept("--");
        verifyChained(main, c);
      }
    }

    /**
     * A chained image, as libavb loads it: signed by exactly the chain descriptor's key, flags 0,
     * its rollback index checked at the descriptor's location, no chains of its own.
     */
    private void verifyChained(Loaded main, ChainPartitionDescriptor c) throws IOException {
      String name = c.partitionName();
      Path path = fileOf(name);
      String display = path.toString();
      out.accept("Verifying image " + display + " using embedded public key");
      if (!Files.exists(path)) {
        throw new AvbVerificationException(
            name + ": no image for the chained partition (looked for " + display + ")");
      }
      Loaded chained = load(path, display, name);
      if (chained.signed() && !MessageDigest.isEqual(publicKey(chained), c.publicKey())) {
        throw new AvbVerificationException(
            "vbmeta of "
                + display
                + " is signed by key sha1 "
                + AvbPublicKey.sha1(publicKey(chained))
                + ", not the key the chain descriptor for "
                + name
                + " in "
                + main.display()
                + " names (sha1 "
                + AvbPublicKey.sha1(c.publicKey())
                + "): a device refuses it");
      }
      succeeded(chained);
      VbmetaHeader header = chained.vbmeta().header();
      if (header.flags() != 0) {
        throw new AvbVerificationException(
            "vbmeta of "
                + display
                + ": flags "
                + header.flags()
                + " (expected: 0 in a chained vbmeta; a device refuses it: 'chained vbmeta image"
                + " has non-zero flags')");
      }
      // The header's own rollback_index_location is not read: libavb's load_and_verify_vbmeta
      // takes it from the header only for the main vbmeta (rollback_index_location_to_use), and a
      // chained one's from its chain descriptor. Device builds set it in chained images too.
      RollbackRules.checkIndex(
          display, c.rollbackIndexLocation(), header.rollbackIndex(), options.rollbackIndexes());
      for (Descriptor d : chained.vbmeta().descriptors()) {
        switch (d) {
          case HashDescriptor h -> verifyHash(chained, h);
          case HashtreeDescriptor h -> verifyHashtree(chained, h);
          case ChainPartitionDescriptor nested ->
              throw new AvbVerificationException(
                  "vbmeta of "
                      + display
                      + " (chained from "
                      + main.display()
                      + ") chains "
                      + nested.partitionName()
                      + " in turn (a device refuses it: 'Encountered chain descriptor not in main"
                      + " image')");
          default -> {}
        }
      }
    }

    private void verifyHash(Loaded image, HashDescriptor d) throws IOException {
      String name = d.partitionName();
      String alg = d.hashAlgorithm();
      HashAlgorithm algorithm =
          HashDescriptorRules.check(name + ": hash descriptor in " + image.display(), d);
      byte[] expected = d.digest();
      if (++loadedPartitions > MAX_LOADED_PARTITIONS) {
        throw new AvbVerificationException(
            name
                + ": more than "
                + MAX_LOADED_PARTITIONS
                + " partitions to load (a device refuses them: 'Too many loaded partitions')");
      }
      PartitionFile target = target(image, name);
      long size = target.device().size();
      if (size < d.imageSize()) {
        throw new AvbVerificationException(
            name
                + ": "
                + target.display()
                + " is "
                + size
                + " bytes, shorter than the "
                + d.imageSize()
                + " its hash descriptor covers");
      }
      byte[] digest;
      try (VerifyProgress.Step step = options.progress().begin(name + " hash", d.imageSize())) {
        digest = AvbHashDigest.compute(target.device(), d.imageSize(), algorithm, d.salt(), step);
      }
      if (!MessageDigest.isEqual(digest, expected)) {
        throw new AvbVerificationException(
            name
                + ": "
                + alg
                + " digest of "
                + target.display()
                + " does not match digest in descriptor (a device refuses it: 'Hash of data does"
                + " not match digest in descriptor')");
      }
      out.accept(
          name
              + ": Successfully verified "
              + alg
              + " hash of "
              + target.display()
              + " for image of "
              + d.imageSize()
              + " bytes");
    }

    private void verifyHashtree(Loaded image, HashtreeDescriptor d) throws IOException {
      PartitionFile target = target(image, d.partitionName());
      out.accept(
          HashtreeVerification.verify(
              image.display(),
              target,
              d,
              options.acceptZeroedHashtree(),
              options.threads(),
              options.progress()));
    }

    /** The image holding partition {@code name}: the image itself for its own descriptors. */
    private PartitionFile target(Loaded image, String name) throws IOException {
      if (name.isEmpty() || name.equals(image.ownName())) {
        return new PartitionFile(image.display(), image.device(), image.metadataStart());
      }
      PartitionFile known = opened.get(name);
      if (known != null) {
        return known;
      }
      Path path = fileOf(name);
      if (!Files.exists(path)) {
        throw new AvbVerificationException(
            name + ": no image for the partition (looked for " + path + ")");
      }
      BlockDevice device = BlockDevices.openRead(path);
      toClose.add(device);
      if (SparseImage.is(device)) {
        throw new AvbFormatException(SparseImage.refusal(path.toString()));
      }
      Optional<AvbFooter> footer = AvbFooter.read(device);
      PartitionFile t =
          new PartitionFile(
              path.toString(),
              device,
              footer.isPresent() ? footer.get().vbmetaOffset() : device.size());
      opened.put(name, t);
      return t;
    }

    /** The file given for partition {@code name}, else {@code <name><ext>} beside the image. */
    private Path fileOf(String name) {
      Path given = options.images().get(name);
      return given != null ? given : top.resolveSibling(name + extension);
    }

    @Override
    public void close() throws IOException {
      IOException failure = null;
      for (BlockDevice d : toClose) {
        try {
          d.close();
        } catch (IOException e) {
          if (failure == null) {
            failure = e;
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /**
   * The name of a footer image's own partition: its first hash or hashtree descriptor's, which
   * {@code add_hash_footer} and {@code add_hashtree_footer} put first.
   */
  private static String firstDataName(VbmetaImage vbmeta) {
    for (Descriptor d : vbmeta.descriptors()) {
      if (d instanceof HashDescriptor h) {
        return h.partitionName();
      }
      if (d instanceof HashtreeDescriptor h) {
        return h.partitionName();
      }
    }
    return null;
  }

  private static String withoutPrefix(String message, String prefix) {
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }

  private static byte[] publicKey(Loaded image) {
    return image.vbmeta().publicKey();
  }
}
