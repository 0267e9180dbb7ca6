package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.cli.command.Checks;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.verity.AvbOptions;
import org.jverity.cli.verity.Trust;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.remote.RemoteOptions;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportRoot;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/**
 * An export of an AVB partition image, as {@code open --avb-key} and a {@code serve} section with
 * {@code avb-key} give it: the vbmeta checked against the key when the config is read (before the
 * server starts, and again on each reload), then an ordinary export of what its hashtree descriptor
 * gives ({@link AvbPartition#trustedRoot}, {@link AvbPartition#fec}): the image as data, hash and
 * FEC device, the descriptor's parameters and root digest as a root known already. The server
 * opens, checks, corrects, counts and reloads it as any other export; a reload of an image signed
 * anew with another tree is a changed export. Stateless.
 */
final class AvbExports {
  private AvbExports() {}

  /**
   * {@code data}'s vbmeta checked against {@code key} and resolved; the caller says when it is
   * unsigned ({@link AvbOptions#unsignedNotice}). An image at a URL is read through a remote source
   * of its own with {@code remote}'s settings, closed before the server opens its devices; its
   * chunks kept in memory only, so that a cache directory a running server holds (a reload) stays
   * the server's.
   */
  static AvbPartition resolve(String data, String key, RemoteArguments remote) throws IOException {
    if (!Locations.isRemote(data)) {
      Checks.requireFile(Path.of(data), "data");
      return AvbOptions.partition(Trust.ONE_SHOT, data, key);
    }
    DeviceSource source = remote.inMemorySource(Trust.ONE_SHOT, data);
    try {
      return AvbOptions.partition(source, data, key);
    } finally {
      RemoteArguments.close(source);
    }
  }

  /**
   * The export of the AVB partition image at {@code data}, resolved as {@code partition}, with the
   * settings given besides.
   *
   * @param remote how the server reaches the image at a URL; null for a local one
   */
  static ExportConfig config(
      String name,
      String description,
      String data,
      AvbPartition partition,
      Path keyFile,
      CorruptionMode mode,
      boolean errorAsCorruption,
      boolean ignoreZeroBlocks,
      boolean checkAtMostOnce,
      IoClass ioClass,
      RemoteOptions remote) {
    return new ExportConfig(
        name,
        description,
        data,
        data,
        new ExportRoot.Known(partition.trustedRoot()),
        null,
        mode,
        errorAsCorruption,
        ignoreZeroBlocks,
        checkAtMostOnce,
        ioClass,
        partition.fec(data),
        remote,
        keyFile);
  }
}
