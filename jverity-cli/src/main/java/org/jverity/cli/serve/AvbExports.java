package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.AvbImage;
import org.jverity.cli.verity.Trust;
import org.jverity.server.ExportConfig;
import org.jverity.server.Locations;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/**
 * An export of an AVB partition image, as {@code open --avb-key} and a {@code serve} section with
 * {@code avb-key} give it: the vbmeta checked against the key when the config is read (before the
 * server starts, and again on each reload), then an ordinary export of the values its hashtree
 * descriptor gives ({@link AvbImage}): the image as data, hash and FEC device, its root digest as
 * the root hash. The server opens, checks, corrects, counts and reloads it as any other export; a
 * reload of an image signed anew with another tree is a changed export. Stateless.
 */
final class AvbExports {
  private AvbExports() {}

  /**
   * {@code data}'s vbmeta checked against {@code key} (as {@code keyName} gives it: the option or
   * the config key) and resolved; the caller says when it is unsigned ({@link
   * AvbImage#unsignedNotice}). An image at a URL is refused: its vbmeta would be read apart from
   * the server's remote source and its cache.
   */
  static AvbImage resolve(String data, String key, String keyName) throws IOException {
    if (Locations.isRemote(data)) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          Locations.withoutQuery(data)
              + ": an AVB image at a URL (expected: a local file with "
              + keyName
              + ")");
    }
    Checks.requireFile(Path.of(data), "data");
    return AvbImage.resolve(Trust.ONE_SHOT, data, key);
  }

  /** The export of {@code image}, with the settings given besides. */
  static ExportConfig config(
      String name,
      String description,
      AvbImage image,
      Path keyFile,
      CorruptionMode mode,
      boolean errorAsCorruption,
      boolean ignoreZeroBlocks,
      boolean checkAtMostOnce,
      IoClass ioClass) {
    return new ExportConfig(
        name,
        description,
        image.location(),
        image.location(),
        image.rootText(),
        image.overrides(),
        null,
        mode,
        errorAsCorruption,
        ignoreZeroBlocks,
        checkAtMostOnce,
        ioClass,
        image.fec(),
        null,
        keyFile);
  }
}
