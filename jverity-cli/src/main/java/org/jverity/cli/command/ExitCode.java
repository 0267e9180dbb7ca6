package org.jverity.cli.command;

import org.jverity.cli.syntax.BadValue;

/**
 * jverity's exit codes: one per kind of failure, so scripts can branch without parsing messages.
 */
public final class ExitCode {
  private ExitCode() {}

  public static final int OK = 0;

  /** Something unexpected inside jverity (a bug): the message says what. */
  public static final int INTERNAL = 1;

  /** Command line not understood: unknown command or option, missing argument. */
  public static final int USAGE = 2;

  /**
   * A parameter dm-verity cannot accept (block size, salt, offsets, root hash or identity syntax),
   * or an option value jverity cannot use (a size such as --length 1X, an empty file name).
   */
  public static final int INVALID_PARAMETER = 3;

  /** A file is missing, unreadable or failed to read or write. */
  public static final int IO_ERROR = 4;

  /** The hash device has no valid superblock where one was expected. */
  public static final int BAD_SUPERBLOCK = 5;

  /** The superblock contradicts an option or the image identity given on the command line. */
  public static final int SUPERBLOCK_MISMATCH = 6;

  /** The tree does not hash to the root hash given (the tree itself is consistent). */
  public static final int ROOT_HASH_MISMATCH = 7;

  /** Data or hash blocks are corrupted. */
  public static final int CORRUPTION = 8;

  /** The data or hash device is shorter than the parameters need. */
  public static final int DEVICE_TOO_SMALL = 9;

  /** No block matches at all: the salt, algorithm, format or block sizes are not the tree's. */
  public static final int WRONG_PARAMETERS = 10;

  /**
   * {@code open}/{@code serve} with {@code --restart-on-corruption}: a block did not verify, the
   * server answered ESHUTDOWN from then on and stopped, so that a supervisor restarts it.
   */
  public static final int RESTART = 11;

  /**
   * {@code open}/{@code serve} with {@code --panic-on-corruption}: a block did not verify and the
   * server stopped at once (dm-verity would panic the kernel).
   */
  public static final int PANIC = 12;

  /**
   * {@code status}, {@code close}, {@code reload}: no running {@code open} or {@code serve} serves
   * an export of that name.
   */
  public static final int INACTIVE = 13;

  /**
   * A signature does not establish trust: {@code verify-sig} or {@code cat --signature} (fs-verity
   * file signature) or {@code --root-hash-signature} (dm-verity: {@code verify}, {@code read},
   * {@code open}, {@code serve}) is unreadable or truncated, made by no trusted certificate, made
   * with another digest algorithm, or does not verify (forged, or over another digest); or an AVB
   * signing helper ({@code --signing_helper}) failed or gave a signature {@code --key} does not
   * verify.
   */
  public static final int SIGNATURE_INVALID = 14;

  /**
   * A hash algorithm jverity cannot compute, named by {@code --hash} or by the superblock ({@code
   * dump} still shows such a superblock, and exits 0).
   */
  public static final int UNSUPPORTED_HASH = 15;

  /**
   * A remote origin refused the credentials (HTTP 401 or 403: wrong or expired S3 keys, a presigned
   * URL past its expiry): the one failure of a remote device that retrying cannot help.
   */
  public static final int ORIGIN_DENIED = 16;

  /**
   * Not a valid AVB image: a footer, vbmeta header or descriptor that libavb would refuse to parse,
   * or an image without the footer or descriptor a command needs ({@code jverity avb ...}).
   */
  public static final int AVB_INVALID = 17;

  /**
   * An AVB image a device would refuse: a vbmeta hash or signature that does not verify, an
   * untrusted key, a digest or root that does not match the image ({@code jverity avb
   * verify_image}, {@code --avb-key}).
   */
  public static final int AVB_REFUSED = 18;

  /**
   * Not a Discoverable Disk Image systemd would use: no GPT, a table that cannot be trusted (CRC,
   * bounds, overlaps), a signature partition that is not its JSON, no root or usr partition ({@code
   * jverity ddi ...}).
   */
  public static final int DDI_INVALID = 19;

  /**
   * {@code read} or {@code cat} to a pipe whose reader went away ({@code | head}): 128 + SIGPIPE,
   * what a shell reports for {@code cat} there, so that {@code set -o pipefail} sees the same; no
   * message ({@link Stdout}).
   */
  public static final int OUTPUT_CLOSED = 141;

  /** What {@code code} means, in a few words (for -v and --debug). */
  public static String meaning(int code) {
    return switch (code) {
      case OK -> "success";
      case INTERNAL -> "internal error";
      case USAGE -> "command line not understood";
      case INVALID_PARAMETER -> "invalid parameter";
      case IO_ERROR -> "file missing, unreadable or failing";
      case BAD_SUPERBLOCK -> "no valid superblock";
      case SUPERBLOCK_MISMATCH -> "superblock contradicts the options";
      case ROOT_HASH_MISMATCH -> "wrong root hash";
      case CORRUPTION -> "corrupted blocks";
      case DEVICE_TOO_SMALL -> "device too small";
      case WRONG_PARAMETERS -> "no block matches: wrong parameters";
      case RESTART -> "restart on corruption";
      case PANIC -> "panic on corruption";
      case INACTIVE -> "no such export served";
      case SIGNATURE_INVALID -> "signature not trusted";
      case UNSUPPORTED_HASH -> "hash algorithm not supported";
      case ORIGIN_DENIED -> "remote origin refused the credentials";
      case AVB_INVALID -> "not a valid AVB image";
      case AVB_REFUSED -> "AVB verification failed";
      case DDI_INVALID -> "not a valid DDI";
      case OUTPUT_CLOSED -> "standard output closed by its reader";
      default -> "unknown";
    };
  }

  /**
   * The exit code of a refused value: {@link #USAGE} if not understood, else {@link
   * #INVALID_PARAMETER}.
   */
  public static int of(BadValue refused) {
    return refused.kind() == BadValue.Kind.USAGE ? USAGE : INVALID_PARAMETER;
  }
}
