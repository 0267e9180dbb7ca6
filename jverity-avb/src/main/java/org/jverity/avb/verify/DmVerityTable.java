package org.jverity.avb.verify;

import java.util.ArrayList;
import java.util.List;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;

/**
 * What a hashtree descriptor becomes on a device, as text (AVB.md 4.4): the dm-verity table
 * first-stage init builds from it (libfs_avb's {@code ConstructVerityTable}), the {@code
 * veritysetup open} command that maps the same image the same way on a Linux host, and the {@code
 * dm=} kernel command line avbtool's {@code --setup_as_rootfs_from_kernel} writes.
 *
 * <p>Made only by {@link #of}, from a descriptor whose numbers the texts can be computed from: the
 * block sizes the divisions use, the offsets a whole number of those blocks, the FEC's roots ones
 * dm-verity takes. A hostile descriptor is refused there, in one line, as {@code verify_image}
 * refuses it, rather than dividing by zero or printing a table the kernel would misread.
 *
 * <p>An empty salt is written {@code -}, dm-verity's and veritysetup's spelling of "no salt"
 * (libfs_avb would leave the field empty, which the kernel refuses).
 */
public final class DmVerityTable {
  /** The partition avbtool's command lines name: the bootloader substitutes its PARTUUID. */
  public static final String AVBTOOL_DEVICE = "PARTUUID=$(ANDROID_SYSTEM_PARTUUID)";

  /** avbtool's second cmdline descriptor (flags 2), used when the hashtree is disabled. */
  public static final String AVBTOOL_CMDLINE_HASHTREE_DISABLED = "root=" + AVBTOOL_DEVICE;

  private final HashtreeDescriptor d;

  private DmVerityTable(HashtreeDescriptor d) {
    this.d = d;
  }

  /**
   * The texts of {@code d}, once its numbers are found usable: data and hash block sizes powers of
   * two from 512 to 512 KiB (what {@code add_hashtree_footer --block_size} takes), {@code
   * image_size} a whole number of data blocks and {@code tree_offset} of hash blocks, dm-verity
   * version 0 or 1, and where the FEC is named ({@code fec_size} or {@code fec_num_roots} not 0) 2
   * to 24 roots and a {@code fec_offset} of whole data blocks.
   *
   * @param where names the descriptor in a refusal: "system: hashtree descriptor in system.img"
   * @throws AvbVerificationException which number cannot make a table, and what it should be
   */
  public static DmVerityTable of(String where, HashtreeDescriptor d)
      throws AvbVerificationException {
    if (d.dmVerityVersion() != 0 && d.dmVerityVersion() != 1) {
      throw refuse(
          where,
          "dm_verity_version "
              + Integer.toUnsignedString(d.dmVerityVersion())
              + " (expected: 1, or 0, the formats dm-verity knows)");
    }
    blockSize(where, "data_block_size", d.dataBlockSize());
    blockSize(where, "hash_block_size", d.hashBlockSize());
    wholeBlocks(where, "image_size", d.imageSize(), "data", d.dataBlockSize());
    wholeBlocks(where, "tree_offset", d.treeOffset(), "hash", d.hashBlockSize());
    if (d.fecSize() != 0 || d.fecNumRoots() != 0) {
      int roots = d.fecNumRoots();
      if (!ReedSolomon.validRoots(Integer.toUnsignedLong(roots))) {
        throw refuse(
            where,
            "fec_num_roots "
                + Integer.toUnsignedString(roots)
                + " with fec_size "
                + d.fecSize()
                + " (expected: "
                + ReedSolomon.ROOTS_RANGE
                + ", or 0 with fec_size 0 for no FEC)");
      }
      wholeBlocks(where, "fec_offset", d.fecOffset(), "data", d.dataBlockSize());
    }
    return new DmVerityTable(d);
  }

  private static void blockSize(String where, String field, int bs)
      throws AvbVerificationException {
    if (!VerityParams.validBlockSize(Integer.toUnsignedLong(bs))) {
      throw refuse(
          where,
          field
              + " "
              + Integer.toUnsignedString(bs)
              + " (expected: "
              + VerityParams.BLOCK_SIZE_RANGE
              + ", as veritysetup takes)");
    }
  }

  private static void wholeBlocks(String where, String field, long bytes, String kind, int bs)
      throws AvbVerificationException {
    if (bytes % bs != 0) {
      throw refuse(
          where,
          field
              + " "
              + bytes
              + " (expected: a whole number of "
              + bs
              + "-byte "
              + kind
              + " blocks, which the table counts)");
    }
  }

  private static AvbVerificationException refuse(String where, String what) {
    return new AvbVerificationException(where + ": " + what);
  }

  /** libfs_avb's table for {@code device} with {@code androidboot.veritymode} unset: enforcing. */
  public String libfsAvb(String device) {
    return libfsAvb(device, AndroidVerityMode.ENFORCING);
  }

  /**
   * libfs_avb's table: {@code 1 DEV DEV DBS HBS N HASH_START ALG ROOT SALT} then the optional
   * arguments, counted: the FEC from the same device when {@code fec_size > 0}, the mode's
   * argument, and always {@code ignore_zero_blocks}.
   */
  public String libfsAvb(String device, AndroidVerityMode mode) {
    List<String> optional = new ArrayList<>();
    if (d.fecSize() > 0) {
      long fecBlocks = d.fecOffset() / d.dataBlockSize();
      optional.addAll(
          List.of(
              "use_fec_from_device",
              device,
              "fec_roots",
              Integer.toString(d.fecNumRoots()),
              "fec_blocks",
              Long.toString(fecBlocks),
              "fec_start",
              Long.toString(fecBlocks)));
    }
    if (mode.tableArgument() != null) {
      optional.add(mode.tableArgument());
    }
    optional.add("ignore_zero_blocks");
    return String.join(
        " ",
        Integer.toString(d.dmVerityVersion()),
        device,
        device,
        Integer.toString(d.dataBlockSize()),
        Integer.toString(d.hashBlockSize()),
        Long.toString(d.imageSize() / d.dataBlockSize()),
        Long.toString(d.treeOffset() / d.hashBlockSize()),
        d.hashAlgorithm(),
        Hex.format(d.rootDigest()),
        salt(),
        Integer.toString(optional.size()),
        String.join(" ", optional));
  }

  /**
   * The options of {@code veritysetup open} (and {@code verify}, which takes the same ones) for the
   * descriptor's tree and FEC inside {@code image}: no superblock, the data blocks and the tree's
   * offset from the descriptor, the FEC from the same file.
   */
  public List<String> veritysetupOptions(String image) {
    List<String> options = new ArrayList<>();
    options.add("--no-superblock");
    options.add("--format=" + d.dmVerityVersion());
    options.add("--hash=" + d.hashAlgorithm());
    options.add("--data-block-size=" + d.dataBlockSize());
    options.add("--hash-block-size=" + d.hashBlockSize());
    options.add("--data-blocks=" + d.imageSize() / d.dataBlockSize());
    options.add("--hash-offset=" + d.treeOffset());
    options.add("--salt=" + salt());
    if (d.fecSize() > 0) {
      options.add("--fec-device=" + image);
      options.add("--fec-offset=" + d.fecOffset());
      options.add("--fec-roots=" + d.fecNumRoots());
    }
    return List.copyOf(options);
  }

  /**
   * {@code veritysetup open OPTIONS IMG NAME IMG ROOT}: the data and the tree are the same file, as
   * on a device; a shell command line, words quoted where a shell would split them.
   */
  public String veritysetupOpen(String image, String name) {
    List<String> words = new ArrayList<>();
    words.add("veritysetup");
    words.add("open");
    words.addAll(veritysetupOptions(image));
    words.addAll(List.of(image, name, image, Hex.format(d.rootDigest())));
    List<String> quoted = new ArrayList<>(words.size());
    for (String w : words) {
      quoted.add(ShellWords.quote(w));
    }
    return String.join(" ", quoted);
  }

  /**
   * avbtool's {@code --setup_as_rootfs_from_kernel} command line (its descriptor has flags 1: used
   * when the hashtree is not disabled): a {@code dm="..."} table over the system partition, hash
   * start = data blocks (avbtool ignores {@code tree_offset} here), {@code check_at_most_once} when
   * the descriptor asks for it, the FEC when it has roots, then {@code root=/dev/dm-0}.
   */
  public String avbtoolCmdline() {
    long dataBlocks = d.imageSize() / d.dataBlockSize();
    boolean atMostOnce = (d.flags() & HashtreeDescriptor.FLAG_CHECK_AT_MOST_ONCE) != 0;
    StringBuilder c = new StringBuilder("dm=\"1 vroot none ro 1,0 ");
    c.append(d.imageSize() / 512)
        .append(" verity ")
        .append(d.dmVerityVersion())
        .append(' ')
        .append(AVBTOOL_DEVICE)
        .append(' ')
        .append(AVBTOOL_DEVICE)
        .append(' ')
        .append(d.dataBlockSize())
        .append(' ')
        .append(d.hashBlockSize())
        .append(' ')
        .append(dataBlocks)
        .append(' ')
        .append(dataBlocks)
        .append(' ')
        .append(d.hashAlgorithm())
        .append(' ')
        .append(Hex.format(d.rootDigest()))
        .append(' ')
        .append(Hex.format(d.salt()));
    boolean fec = d.fecNumRoots() > 0;
    c.append(' ').append((fec ? 10 : 2) + (atMostOnce ? 1 : 0));
    if (atMostOnce) {
      c.append(" check_at_most_once");
    }
    c.append(" $(ANDROID_VERITY_MODE) ignore_zero_blocks");
    if (fec) {
      long fecBlocks = d.fecOffset() / d.dataBlockSize();
      c.append(" use_fec_from_device ")
          .append(AVBTOOL_DEVICE)
          .append(" fec_roots ")
          .append(d.fecNumRoots())
          .append(" fec_blocks ")
          .append(fecBlocks)
          .append(" fec_start ")
          .append(fecBlocks);
    }
    return c.append("\" root=/dev/dm-0").toString();
  }

  private String salt() {
    byte[] salt = d.salt();
    return salt.length == 0 ? "-" : Hex.format(salt);
  }
}
