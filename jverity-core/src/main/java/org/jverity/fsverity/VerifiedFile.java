package org.jverity.fsverity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeRoot;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.SourceStats;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;
import org.jverity.verify.VerifiedSource;

/**
 * A file read through its fs-verity Merkle tree: no byte is returned unless its block verified
 * against a root hash that was itself checked against the expected fs-verity file digest, as the
 * kernel reads a verity file. The tree is the one {@code fsverity digest --out-merkle-tree} writes
 * (and {@code FS_IOC_READ_VERITY_METADATA} returns): root level first at offset 0.
 *
 * <p>Opening trusts nothing but the digest. The file digest is the hash of the 256-byte descriptor,
 * which holds the algorithm, block size, salt, file size and root hash; so opening computes the
 * root hash from the tree's top block (from the single data block for a one-block file; all zeros
 * for the empty file), builds the descriptor for the file's size and the given parameters, and
 * refuses with {@link FileDigestMismatchException} unless it hashes to the expected digest. Only
 * then is the root trusted. A damaged top tree block (or, for a one-block file, a damaged data
 * block) therefore shows as a digest mismatch at open; damage anywhere else shows as a {@link
 * org.jverity.verify.CorruptBlockException} when the blocks under it are read.
 *
 * <p>Reads go through the block path's machinery: a {@link VerifiedReader} over the shared {@link
 * HashBlockCache}, a {@link VerificationScheduler} (inline or pooled hashing, Merkle readahead on
 * sequential reads) and the {@link ReaderOptions} corruption policy.
 *
 * <pre>{@code
 * try (VerifiedFile f = VerifiedFile.open(Path.of("app.bin"), Path.of("app.bin.merkle"),
 *     "sha256:3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95")) {
 *   byte[] head = f.read(0, (int) Math.min(f.size(), 4096));  // verified bytes, or an IOException
 * } catch (FileDigestMismatchException e) {
 *   // not the file (or tree) the digest names: nothing was read
 * } catch (CorruptBlockException e) {
 *   // e.dataBlock(): the first block that did not verify; bytes before it did
 * }
 * }</pre>
 *
 * With other parameters: {@code VerifiedFile.open(file, tree, "sha512:…",
 * VerifiedFile.Parameters.DEFAULTS.withBlockSize(1024).withSalt(salt))}.
 *
 * <p>Without a digest known in advance, {@link #describe} gives the descriptor file and tree claim;
 * once something trusted vouches for its digest (a built-in signature: {@code
 * org.jverity.sig.SignedFileDigest} in jverity-sig), {@code open} with that digest checks it again
 * and reads, as the kernel checks a signature over the digest it computed before using the file.
 *
 * <p>Thread-safe: any number of threads may read at once. {@link #close()} waits for reads in
 * flight.
 */
public final class VerifiedFile implements VerifiedSource, AutoCloseable {
  private final VerifiedReader reader;
  private final VerificationScheduler scheduler;
  private final FsVerityDigest digest; // verified
  private final byte[] rootHash; // trusted: the verified descriptor holds it
  private final BlockDevice ownedFile; // closed with this; null when the caller owns the devices
  private final BlockDevice ownedTree;

  /**
   * The tree parameters that are not in the digest string: the block size (bytes, data and tree
   * alike) and the salt (0 to 32 bytes, as given to {@code fsverity digest --salt}). The hash
   * algorithm is named by the digest ({@code sha256:} or {@code sha512:}).
   */
  public record Parameters(int blockSize, byte[] salt) {
    /** {@code fsverity digest}'s defaults: 4096-byte blocks, no salt. */
    public static final Parameters DEFAULTS = new Parameters(4096, new byte[0]);

    public Parameters {
      if (blockSize < 64
          || Integer.bitCount(blockSize) != 1) { // the layout checks it per algorithm
        throw new VerityParameterException(
            "block size: " + blockSize + " (expected: a power of two, e.g. 4096)");
      }
      Objects.requireNonNull(salt, "salt");
      if (salt.length > FsVerityParams.MAX_SALT_SIZE) {
        throw new VerityParameterException(
            "salt: "
                + salt.length
                + " bytes (expected: at most "
                + FsVerityParams.MAX_SALT_SIZE
                + ")");
      }
      salt = salt.clone();
    }

    @Override
    public byte[] salt() {
      return salt.clone();
    }

    public Parameters withBlockSize(int v) {
      return new Parameters(v, salt);
    }

    public Parameters withSalt(byte[] v) {
      return new Parameters(blockSize, v);
    }
  }

  private VerifiedFile(
      VerifiedReader reader,
      VerificationScheduler scheduler,
      FsVerityDigest digest,
      byte[] rootHash,
      BlockDevice ownedFile,
      BlockDevice ownedTree) {
    this.reader = reader;
    this.rootHash = rootHash;
    this.scheduler = scheduler;
    this.digest = digest;
    this.ownedFile = ownedFile;
    this.ownedTree = ownedTree;
  }

  /** Opens {@code file} with its tree {@code merkleTree}, 4096-byte blocks and no salt. */
  public static VerifiedFile open(Path file, Path merkleTree, String expectedDigest)
      throws IOException {
    return open(file, merkleTree, expectedDigest, Parameters.DEFAULTS, ReaderOptions.DEFAULTS);
  }

  /**
   * Opens {@code file} with its tree {@code merkleTree}; the hash block cache and hashing pool are
   * the process-wide ones. The files are closed with the returned object.
   *
   * @param expectedDigest {@code sha256:HEX} or {@code sha512:HEX}, as {@code fsverity digest} and
   *     {@code fsverity measure} print it
   * @throws FileDigestMismatchException if file and tree do not give {@code expectedDigest}
   * @throws VerityParameterException if the digest or parameters are malformed
   * @throws DeviceTooSmallException if the tree is shorter than a tree of this file
   */
  public static VerifiedFile open(
      Path file, Path merkleTree, String expectedDigest, Parameters params, ReaderOptions options)
      throws IOException {
    BlockDevice data = BlockDevices.openRead(file);
    BlockDevice tree = null;
    try {
      tree = BlockDevices.openRead(merkleTree);
      return open(
          data,
          tree,
          expectedDigest,
          params,
          HashBlockCache.shared(),
          options,
          HashingPool.shared(),
          data,
          tree);
    } catch (IOException | RuntimeException | Error e) {
      closeQuietly(tree, e);
      closeQuietly(data, e);
      throw e;
    }
  }

  /**
   * Opens a file held on {@code file} with its tree on {@code tree}; the caller keeps ownership of
   * the devices, the cache and the pool, which must outlive the returned object.
   */
  public static VerifiedFile open(
      BlockDevice file,
      BlockDevice tree,
      String expectedDigest,
      Parameters params,
      HashBlockCache cache,
      ReaderOptions options,
      HashingPool pool)
      throws IOException {
    return open(file, tree, expectedDigest, params, cache, options, pool, null, null);
  }

  private static VerifiedFile open(
      BlockDevice file,
      BlockDevice tree,
      String expectedDigest,
      Parameters params,
      HashBlockCache cache,
      ReaderOptions options,
      HashingPool pool,
      BlockDevice ownedFile,
      BlockDevice ownedTree)
      throws IOException {
    Objects.requireNonNull(params, "params");
    FsVerityDigest want =
        FsVerityDigest.parse(Objects.requireNonNull(expectedDigest, "expectedDigest"));
    HashAlgorithm alg = want.algorithm();
    FsVerityDescriptor claimed = describe(file, tree, alg, params);
    FsVerityDigest got = claimed.fileDigest();
    if (!got.matches(want)) {
      throw new FileDigestMismatchException(file.description(), want.toString(), got.toString());
    }
    byte[] root =
        claimed.rootHash(); // trusted from here: its descriptor hashes to the expected digest
    MerkleLayout layout = MerkleLayout.fsVerity(alg, params.blockSize(), claimed.dataSize());
    BlockHasher hasher = BlockHasher.fsVerity(alg, params.salt());
    VerifiedReader reader = VerifiedReader.open(layout, hasher, file, tree, root, cache, options);
    return new VerifiedFile(
        reader, new VerificationScheduler(reader, pool), want, root, ownedFile, ownedTree);
  }

  /**
   * The descriptor {@code file} and its tree {@code merkleTree} claim with these parameters: the
   * file's size and the root hash computed from the tree's top block. Untrusted: it is what the
   * files say, and its {@link FsVerityDescriptor#digest() digest} is what must be vouched for (a
   * signature checked over it) before {@link #open} with that digest, which computes it again.
   *
   * @param alg sha256 or sha512
   * @throws DeviceTooSmallException if the tree is shorter than a tree of this file
   */
  public static FsVerityDescriptor describe(
      Path file, Path merkleTree, HashAlgorithm alg, Parameters params) throws IOException {
    try (BlockDevice data = BlockDevices.openRead(file);
        BlockDevice tree = BlockDevices.openRead(merkleTree)) {
      return describe(data, tree, alg, params);
    }
  }

  /** As {@link #describe(Path, Path, HashAlgorithm, Parameters)}, for devices the caller owns. */
  public static FsVerityDescriptor describe(
      BlockDevice file, BlockDevice tree, HashAlgorithm alg, Parameters params) throws IOException {
    Objects.requireNonNull(params, "params");
    FsVerityParams p =
        new FsVerityParams(alg, params.blockSize(), params.salt()); // refuses sha1, odd sizes
    long size = file.size();
    MerkleLayout layout = MerkleLayout.fsVerity(alg, params.blockSize(), size);
    // Untrusted until the descriptor checks: what the file and the tree give.
    TreeRoot.requireDevices(
        layout, file, "data", tree, "Merkle tree (truncated, or not this file's?)");
    byte[] root = TreeRoot.digest(layout, BlockHasher.fsVerity(alg, p.salt()), file, tree);
    return new FsVerityDescriptor(p, size, root);
  }

  private static void closeQuietly(BlockDevice d, Throwable primary) {
    if (d == null) {
      return;
    }
    try {
      d.close();
    } catch (IOException | RuntimeException e) {
      primary.addSuppressed(e);
    }
  }

  /** The file's size in bytes. */
  @Override
  public long size() {
    return reader.size();
  }

  /**
   * The verified fs-verity file digest, {@code alg:hex} (lower case), as {@code fsverity digest}
   * prints it.
   */
  public String digest() {
    return digest.toString();
  }

  /** The verified fs-verity file digest. */
  public FsVerityDigest fileDigest() {
    return digest;
  }

  /**
   * The tree's root hash, trusted because the descriptor holding it hashes to {@link #digest()}.
   */
  public byte[] rootHash() {
    return rootHash.clone();
  }

  /** Bytes per block, of data and tree alike. */
  @Override
  public int blockSize() {
    return reader.layout().dataBlockSize();
  }

  /**
   * Reads {@code length} verified bytes at {@code offset}; as {@link VerifiedSource#read(long,
   * byte[], int, int)}, with {@link IoClass#BEST_EFFORT}.
   */
  @Override
  public void read(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    scheduler.read(offset, dst, dstOffset, length);
  }

  /**
   * As {@link #read(long, byte[], int, int)}, scheduled as {@code ioClass} (inline limits differ).
   */
  @Override
  public void read(long offset, byte[] dst, int dstOffset, int length, IoClass ioClass)
      throws IOException {
    scheduler.read(offset, dst, dstOffset, length, ioClass);
  }

  @Override
  public SourceStats stats() {
    return scheduler.stats();
  }

  @Override
  public boolean ignoresZeroBlocks() {
    return scheduler.ignoresZeroBlocks();
  }

  @Override
  public boolean isZeroBlock(long block) throws IOException {
    return scheduler.isZeroBlock(block);
  }

  /**
   * The reader underneath, for its status and counters ({@code corruptionCount()}, {@code
   * cacheStats()}).
   */
  public VerifiedReader reader() {
    return reader;
  }

  /**
   * Waits for reads in flight, then closes the reader and, if this object opened them, the files.
   */
  @Override
  public void close() throws IOException {
    scheduler.close();
    reader.close();
    IOException first = null;
    for (BlockDevice d : new BlockDevice[] {ownedTree, ownedFile}) {
      if (d != null) {
        try {
          d.close();
        } catch (IOException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
