package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.image.ConflictingOverridesException;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.image.ParamConflict;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.TrustedRoot;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;

/**
 * The command line's side of {@link TrustedRoot} and {@link VerityImage#open}: the options as
 * overrides, the data file's whole blocks when there is no superblock, and the conflicts the core
 * returns phrased as the options ("data blocks 256 (option: 300)") with their exit codes.
 */
public final class Trust {
  /**
   * Local files through FileChannel, opened at once (no native binding to pay): for one-shot
   * commands that read each block once, which nothing interrupts.
   */
  public static final DeviceSource ONE_SHOT =
      new DeviceSource() {
        @Override
        public BlockDevice open(String location) throws IOException {
          return FileDevice.openChannel(Path.of(location), false);
        }

        @Override
        public boolean same(String a, String b) throws IOException {
          return DeviceSource.LOCAL.same(a, b);
        }
      };

  private Trust() {}

  /** The trusted root of the image, its conflicts phrased. */
  public static TrustedRoot resolve(VerityOptions o, Path data, BlockDevice hash, String rootText)
      throws IOException {
    try {
      return TrustedRoot.resolve(o.overrides(), hash, rootText, dataBlocks(data));
    } catch (ConflictingOverridesException e) {
      throw phrased(e);
    }
  }

  /**
   * The image's devices opened through {@code source} (paths, or URLs through a {@code
   * RemoteSource}), its root resolved and checked, its conflicts phrased.
   */
  public static VerityImage open(
      DeviceSource source,
      String data,
      String hash,
      VerityOptions o,
      String rootText,
      RootCheck check)
      throws IOException, GeneralSecurityException {
    return open(source, data, hash, o.overrides(), rootText, check);
  }

  /**
   * As {@link #open(DeviceSource, String, String, VerityOptions, String, RootCheck)}, the options
   * as overrides.
   */
  public static VerityImage open(
      DeviceSource source,
      String data,
      String hash,
      ParamOverrides overrides,
      String rootText,
      RootCheck check)
      throws IOException, GeneralSecurityException {
    try {
      return VerityImage.open(source, data, hash, overrides, rootText, dataBlocks(data), check);
    } catch (ConflictingOverridesException e) {
      throw phrased(e);
    }
  }

  /**
   * Without a superblock or --data-blocks: the data's whole blocks, of the file at {@code data} (as
   * its size is told locally: a block device's too), or for a URL of the device opened (null: the
   * opener asks it).
   */
  static TrustedRoot.DataBlocks dataBlocks(String data) {
    return Locations.isRemote(data) ? null : dataBlocks(Path.of(data));
  }

  /**
   * Without a superblock or --data-blocks: the data file's whole blocks (none without a data file).
   */
  static TrustedRoot.DataBlocks dataBlocks(Path data) {
    return size -> {
      if (data == null) {
        throw new CliException(
            ExitCode.INVALID_PARAMETER, "--data-blocks is needed without a superblock");
      }
      return ParamsResolver.wholeBlocks(data, size);
    };
  }

  /**
   * The conflicts as the options name them: against the superblock exit 5, against an identity exit
   * 3.
   */
  public static CliException phrased(ConflictingOverridesException e) {
    String has = String.join(", ", e.conflicts().stream().map(Trust::phrase).toList());
    return switch (e.against()) {
      case SUPERBLOCK ->
          new CliException(
              ExitCode.SUPERBLOCK_MISMATCH,
              e.device() + ": superblock does not match the options: it has " + has);
      case IDENTITY ->
          new CliException(
              ExitCode.INVALID_PARAMETER, "the options contradict the identity: it has " + has);
    };
  }

  private static String phrase(ParamConflict c) {
    return c.parameter() + " " + c.actual() + " (option: " + c.given() + ")";
  }
}
