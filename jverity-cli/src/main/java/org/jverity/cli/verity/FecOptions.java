package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.fec.FecLayout;
import org.jverity.fec.FecRepairer;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.image.DeviceSource;
import org.jverity.image.FecParity;
import org.jverity.image.FecSource;
import org.jverity.image.Locations;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;

/**
 * veritysetup's FEC options for the commands that read an image ({@code read}, {@code verify},
 * {@code repair}, {@code open}): where the Reed-Solomon parity is and how strong it is.
 */
public final class FecOptions {
  /** Where the parity is: a path, or a URL (for the commands that only read it). */
  public String device;

  public long offset;
  public int roots = ReedSolomon.DEFAULT_ROOTS;

  /** Whether --fec-offset or --fec-roots was given: without --fec-device they would be ignored. */
  private String tuning;

  public static final Syntax<FecOptions> SYNTAX =
      Syntax.<FecOptions>group()
          .location(
              "--fec-device",
              "FILE",
              "Reed-Solomon parity (as veritysetup --fec-device): a file or a URL.",
              (c, v) -> c.device = v)
          .option(
              "--fec-offset",
              "BYTES",
              "Where the parity starts on the FEC device (default 0).",
              (c, v) -> {
                c.offset = WholeNumber.parseLong(v);
                c.tuning = "--fec-offset";
              })
          .option(
              "--fec-roots",
              "N",
              "Parity bytes per codeword, "
                  + ReedSolomon.ROOTS_RANGE
                  + " (default "
                  + ReedSolomon.DEFAULT_ROOTS
                  + ").",
              (c, v) -> {
                c.roots = WholeNumber.parseInt(v);
                c.tuning = "--fec-roots";
              });

  public boolean given() {
    return device != null;
  }

  /**
   * Refuses, before any file is read, what cannot be a FEC device: a file missing, unreadable, a
   * directory or neither a regular file nor a block device (such as {@code /dev/null}), exit 4 as
   * veritysetup's "does not exist or access denied" and "is not compatible"; an offset out of
   * range, or roots or an offset given without {@code --fec-device}, exit 3 (the roots' range is
   * {@link FecLayout}'s to check). A typo in the FEC path must not pass for an image that FEC
   * protects.
   */
  public void check() throws IOException {
    if (device == null) {
      if (tuning != null) {
        throw new CliException(ExitCode.INVALID_PARAMETER, tuning + " needs --fec-device");
      }
      return;
    }
    check(device, offset);
  }

  /**
   * That {@code device} can be a FEC device and {@code offset} a FEC offset, as veritysetup refuses
   * them; a URL is the origin's to answer for.
   */
  public static void check(String device, long offset) throws IOException {
    Path file = Locations.file(device);
    if (file != null) {
      Checks.requireFile(file, "FEC");
      if (!Files.isRegularFile(file) && !BlockDevices.isBlockDevice(file)) {
        throw new CliException(
            ExitCode.IO_ERROR, file + ": FEC file is not a regular file or a block device");
      }
    }
    if (offset < 0 || offset % VerityParams.SECTOR_SIZE != 0) {
      throw new VerityParameterException(
          "--fec-offset: "
              + offset
              + " (expected: a non-negative multiple of "
              + VerityParams.SECTOR_SIZE
              + ")");
    }
  }

  /**
   * A FEC corrector for the image: the parity device opened read-only (the hash device itself when
   * they are one file), checked to be long enough.
   *
   * @param closer receives the FEC device to close after use (when it is not the hash device)
   */
  public FecRepairer repairer(
      VerityParams params,
      BlockDevice data,
      BlockDevice hash,
      Path hashPath,
      List<AutoCloseable> closer)
      throws IOException {
    check();
    FecParity parity = source().open(DeviceSource.LOCAL, params, data, hash, hashPath.toString());
    closer.add(parity);
    return parity.repairer();
  }

  /** Where the parity is, for the opener (which opens it); after {@link #check}. */
  public FecSource source() {
    return device == null ? null : new FecSource(device, offset, roots);
  }

  /** Closes the parity devices {@link #repairer} opened: read-only, so a failure loses nothing. */
  public static void closeAll(List<AutoCloseable> devices) {
    for (AutoCloseable c : devices) {
      try {
        c.close();
      } catch (Exception ignored) {
        // read-only parity: nothing to lose
      }
    }
  }
}
