package org.jverity.cli.command;

/**
 * jverity's exit codes as veritysetup's, for scripts written against veritysetup: veritysetup's
 * verbs by default, every verb with {@code --veritysetup-exit-codes} or {@code
 * JVERITY_EXIT_CODES=veritysetup} ({@link ExitCodeRule}).
 *
 * <p>veritysetup exits with {@code translate_errno(r)} (cryptsetup's src/utils_tools.c): 0 success;
 * 1 for -EINVAL and anything unlisted; 2 for -EPERM; 3 for -ENOMEM; 4 for -ENODEV/-ENOTBLK; 5 for
 * -EEXIST/-EBUSY. Its verification (lib/verity/verity_hash.c) returns -EPERM when a data or hash
 * block does not match ("Verification failed at position N", exit 2) and -EFAULT when only the root
 * hash does not ("Verification of root hash failed", exit 1). A device it cannot open, missing or
 * not permitted, is "does not exist or access denied", exit 4. Checked against veritysetup 2.6.1 in
 * CommandLineHabitsTest.
 */
public final class VeritysetupExitCodes {
  private VeritysetupExitCodes() {}

  public static final String ENV = "JVERITY_EXIT_CODES";
  public static final String ENV_VALUE = "veritysetup";

  /** veritysetup's code for what jverity's {@code code} means. */
  public static int of(int code) {
    return switch (code) {
      case ExitCode.OK -> 0;
      // Ended by its reader (| head): what a shell reports for any command SIGPIPE ends.
      case ExitCode.OUTPUT_CLOSED -> ExitCode.OUTPUT_CLOSED;
      // Blocks that do not match their hashes: -EPERM. A tree of other parameters (nothing matches)
      // fails the same way in veritysetup, at position 0.
      case ExitCode.CORRUPTION, ExitCode.WRONG_PARAMETERS -> 2;
      // The device cannot be opened: -ENODEV. veritysetup status and close of a name that is not
      // active return -ENODEV too (action_status: "NAME is inactive.", r = -ENODEV).
      case ExitCode.IO_ERROR, ExitCode.INACTIVE -> 4;
      // Usage, parameters, superblock, root hash, short device, signature, internal errors:
      // -EINVAL, -EFAULT, -EIO, -EKEYREJECTED and the rest, all 1.
      default -> 1;
    };
  }
}
