package org.jverity.image;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jverity.fec.FecRepairer;
import org.jverity.io.BlockDevice;
import org.jverity.io.SliceDevice;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * The one way to open a dm-verity image: its data and hash devices opened through a {@link
 * DeviceSource}, its {@link TrustedRoot} resolved, the root checked ({@link RootCheck}), then the
 * FEC parity and the verified reader. Owns every device it opened until {@link #reader} hands them
 * to the {@link VerifiedImage}; a failure at any step closes all of them.
 *
 * <pre>{@code
 * try (VerifiedImage image = VerityImage.open("data.img", "hash.img", rootHex).reader()) {
 *   image.scheduler().read(offset, buf, 0, length); // verified bytes, or CorruptBlockException
 * }
 * }</pre>
 *
 * <p>Not thread-safe while opening; the {@link VerifiedImage} it gives is.
 */
public final class VerityImage implements AutoCloseable {
  private final DeviceSource source;
  private final String hashLocation;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final TrustedRoot trusted;
  private final List<AutoCloseable> owned =
      new ArrayList<>(); // FEC parity devices, in opening order
  private boolean handedOver;

  private VerityImage(
      DeviceSource source,
      String hashLocation,
      BlockDevice data,
      BlockDevice hash,
      TrustedRoot trusted) {
    this.source = source;
    this.hashLocation = hashLocation;
    this.data = data;
    this.hash = hash;
    this.trusted = trusted;
  }

  /** Local files, parameters from the superblock, no root check. */
  public static VerityImage open(String data, String hash, String rootText) throws IOException {
    try {
      return open(
          DeviceSource.LOCAL, data, hash, ParamOverrides.NONE, rootText, null, RootCheck.NONE);
    } catch (GeneralSecurityException e) {
      throw new AssertionError("RootCheck.NONE refused a root", e); // it checks nothing
    }
  }

  /**
   * Opens the data and hash devices, resolves the trusted root and checks it, before any block is
   * read.
   *
   * @param dataBlocks without a superblock or a data-blocks override: where their number comes
   *     from; null: the data device's whole blocks
   * @param check the root hash's check (a signature), or {@link RootCheck#NONE}
   * @throws ConflictingOverridesException when overrides contradict the superblock or identity
   * @throws GeneralSecurityException when {@code check} refuses the root hash
   */
  public static VerityImage open(
      DeviceSource source,
      String data,
      String hash,
      ParamOverrides overrides,
      String rootText,
      TrustedRoot.DataBlocks dataBlocks,
      RootCheck check)
      throws IOException, GeneralSecurityException {
    return open(
        source,
        data,
        hash,
        (dataDev, hashDev) ->
            TrustedRoot.resolve(
                overrides,
                hashDev,
                rootText,
                dataBlocks != null ? dataBlocks : TrustedRoot.DataBlocks.of(dataDev)),
        check);
  }

  /**
   * Opens the data and hash devices of an image whose root is known already ({@link
   * TrustedRoot#of}: another format's trusted metadata, such as an AVB vbmeta, gave it), and checks
   * that root before any block is read. Nothing is read to find the parameters: a superblock, if
   * there is one, is not consulted.
   *
   * @param check the root hash's check, or {@link RootCheck#NONE} when the root's source was
   *     checked already (a vbmeta's signature)
   * @throws GeneralSecurityException when {@code check} refuses the root hash
   */
  public static VerityImage open(
      DeviceSource source, String data, String hash, TrustedRoot root, RootCheck check)
      throws IOException, GeneralSecurityException {
    return open(source, data, hash, (dataDev, hashDev) -> root, check);
  }

  /**
   * As {@link #open(DeviceSource, String, String, TrustedRoot, RootCheck)}, the data being {@code
   * dataLength} bytes of {@code data} from {@code dataOffset} ({@link SliceDevice}): a partition of
   * a disk image whose table says where it is (a DDI's root or usr partition, its tree in another
   * partition of the same image at the root's hash offset).
   */
  public static VerityImage open(
      DeviceSource source,
      String data,
      long dataOffset,
      long dataLength,
      String hash,
      TrustedRoot root,
      RootCheck check)
      throws IOException, GeneralSecurityException {
    BlockDevice image = source.open(data);
    BlockDevice partition;
    try {
      partition = SliceDevice.of(image, dataOffset, dataLength, image.description() + " (data)");
    } catch (IOException | RuntimeException e) {
      Closing.quietly(image);
      throw e;
    }
    return open(source, partition, hash, (dataDev, hashDev) -> root, check);
  }

  /** How the root is found once the devices are open. */
  @FunctionalInterface
  private interface RootResolver {
    TrustedRoot resolve(BlockDevice data, BlockDevice hash) throws IOException;
  }

  private static VerityImage open(
      DeviceSource source, String data, String hash, RootResolver resolver, RootCheck check)
      throws IOException, GeneralSecurityException {
    return open(source, source.open(data), hash, resolver, check);
  }

  /** With the data device open already: it is closed if the rest fails. */
  private static VerityImage open(
      DeviceSource source, BlockDevice dataDev, String hash, RootResolver resolver, RootCheck check)
      throws IOException, GeneralSecurityException {
    BlockDevice hashDev = null;
    try {
      hashDev = source.open(hash);
      TrustedRoot trusted = resolver.resolve(dataDev, hashDev);
      check.check(trusted.rootHash()); // before any block is read
      prefetchUpperLevels(hashDev, trusted);
      return new VerityImage(source, hash, dataDev, hashDev, trusted);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      Closing.quietly(hashDev);
      Closing.quietly(dataDev);
      throw e;
    }
  }

  /**
   * Asks the hash device for every level above level 0 in one range: they sit first in the tree,
   * are small (1/128 of level 0 each step up for SHA-256 in 4 KiB blocks) and are on every read's
   * path, so a remote hash device fetches them in one round trip at open, not one per level.
   */
  private static void prefetchUpperLevels(BlockDevice hash, TrustedRoot trusted) {
    if (trusted.params() == null) {
      return;
    }
    MerkleLayout layout = MerkleLayout.dmVerity(trusted.params());
    if (layout.levels() > 1) {
      long upperEnd = layout.levelStart(0) * layout.hashBlockSize();
      hash.prefetch(layout.treeOffset(), upperEnd - layout.treeOffset());
    }
  }

  public TrustedRoot trusted() {
    return trusted;
  }

  /** The data device as opened (not through a caller's view). */
  public BlockDevice data() {
    return data;
  }

  /** The hash device as opened. */
  public BlockDevice hash() {
    return hash;
  }

  /** As {@link #fec(FecSource, BlockDevice, BlockDevice)} over the devices as opened. */
  public BlockRepairer fec(FecSource fec) throws IOException {
    return fec(fec, data, hash);
  }

  /**
   * Opens the FEC parity (owned by this image from then on) and returns its repairer, reading
   * through {@code dataView} and {@code hashView} (views of this image's devices); {@link
   * BlockRepairer#NONE} when {@code fec} is null. A failure closes everything.
   */
  public BlockRepairer fec(FecSource fec, BlockDevice dataView, BlockDevice hashView)
      throws IOException {
    return fec == null ? BlockRepairer.NONE : fecRepairer(fec, dataView, hashView);
  }

  /**
   * As {@link #fec(FecSource, BlockDevice, BlockDevice)} for a parity that is given, as the FEC
   * repairer itself: for a caller that runs FEC's recovery over the whole image.
   */
  public FecRepairer fecRepairer(FecSource fec, BlockDevice dataView, BlockDevice hashView)
      throws IOException {
    try {
      FecParity parity = fec.open(source, trusted.params(), dataView, hashView, hashLocation);
      owned.add(parity);
      return parity.repairer();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * A reader of its own over this image's devices, which stay this image's: for a look at the image
   * (a sample, a first block) before it is served. The caller closes the reader.
   */
  public VerifiedReader probe(HashBlockCache cache, ReaderOptions options) throws IOException {
    return VerifiedReader.open(trusted.params(), data, hash, trusted.rootHash(), cache, options);
  }

  /** The verified image over the shared cache, with the defaults. */
  public VerifiedImage reader() throws IOException {
    return reader(HashBlockCache.shared(), ReaderOptions.DEFAULTS, data, hash);
  }

  /**
   * As {@link #reader(HashBlockCache, ReaderOptions, BlockDevice, BlockDevice)} over the devices as
   * opened.
   */
  public VerifiedImage reader(HashBlockCache cache, ReaderOptions options) throws IOException {
    return reader(cache, options, data, hash);
  }

  /**
   * The verified reader and its scheduler, reading through {@code dataView} and {@code hashView};
   * they own every device this image opened from then on (closing this image does nothing more). A
   * failure closes everything.
   *
   * @param options the reader's options, with the repairer {@link #fec} gave (decorated as wished)
   */
  public VerifiedImage reader(
      HashBlockCache cache, ReaderOptions options, BlockDevice dataView, BlockDevice hashView)
      throws IOException {
    try {
      VerifiedReader reader =
          VerifiedReader.open(
              trusted.params(), dataView, hashView, trusted.rootHash(), cache, options);
      List<AutoCloseable> all = new ArrayList<>(owned);
      all.add(0, data);
      all.add(0, hash);
      handedOver = true;
      return new VerifiedImage(trusted, reader, new VerificationScheduler(reader), all);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Closes what it opened, unless {@link #reader} has handed it over. */
  @Override
  public void close() {
    if (handedOver) {
      return;
    }
    handedOver = true; // once
    for (AutoCloseable c : owned) {
      Closing.quietly(c);
    }
    Closing.quietly(hash);
    Closing.quietly(data);
  }

  /** The repairer decorated by {@code wrap}, or {@link BlockRepairer#NONE} untouched. */
  public static BlockRepairer decorated(BlockRepairer repairer, UnaryOperator<BlockRepairer> wrap) {
    return repairer == BlockRepairer.NONE ? repairer : wrap.apply(repairer);
  }
}
