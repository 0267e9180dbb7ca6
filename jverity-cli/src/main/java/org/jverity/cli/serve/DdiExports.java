package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.jverity.cli.ddi.DdiOpenOptions;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.verity.Trust;
import org.jverity.ddi.Designator;
import org.jverity.ddi.Dissection.GivenHashes;
import org.jverity.ddi.RootHashSource;
import org.jverity.ddi.ServedPartition;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.remote.RemoteOptions;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportRoot;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/**
 * An export of a DDI's root or usr partition, as {@code open IMAGE.raw NAME} gives it: the image's
 * table read and its trust established when the command line is read (the signature partition
 * against the trusted certificates, or the root hash given), then an ordinary export of the data
 * partition's range with the verity partition's tree in the same image ({@link
 * ExportRoot.Partition}). Stateless.
 */
final class DdiExports {
  private DdiExports() {}

  /** Whether the local file {@code data} is a GPT disk image. */
  static boolean isDisk(String data) throws IOException {
    Path file = Locations.file(data);
    if (file == null || !Files.isRegularFile(file)) {
      return false;
    }
    try (FileDevice d = FileDevice.openChannel(file, false)) {
      return isDisk(d);
    }
  }

  /** Whether {@code d} has a GPT header's signature at 512 or 4096, the two sector sizes. */
  private static boolean isDisk(BlockDevice d) throws IOException {
    byte[] signature = "EFI PART".getBytes(StandardCharsets.US_ASCII);
    for (long at : new long[] {512, 4096}) {
      if (d.size() >= at + signature.length) {
        byte[] b = new byte[signature.length];
        d.readFully(at, b, 0, b.length);
        if (Arrays.equals(b, signature)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The partition of {@code data} to serve, its trust established, or why not; null when {@code
   * data}, a URL, is no disk image (then it is an ordinary open missing its HASH). An image at a
   * URL is read through a remote source of its own with {@code remote}'s settings, closed before
   * the server opens its devices, its chunks kept in memory only (as {@link AvbExports#resolve}).
   */
  static ServedPartition resolve(
      String data, DdiOpenOptions o, String rootHash, RemoteArguments remote)
      throws IOException, InvalidSignatureException {
    GivenHashes given =
        rootHash == null
            ? GivenHashes.NONE
            : o.designator() == Designator.ROOT
                ? new GivenHashes(rootHash, RootHashSource.OPTION, null, null)
                : new GivenHashes(null, null, rootHash, RootHashSource.OPTION);
    if (!Locations.isRemote(data)) {
      try (FileDevice d = FileDevice.openChannel(Locations.file(data), false)) {
        return ServedPartition.resolve(d, o.designator(), o.arch(), given, o.certificates());
      }
    }
    DeviceSource source = remote.inMemorySource(Trust.ONE_SHOT, data);
    try (BlockDevice d = source.open(data)) {
      if (!isDisk(d)) {
        return null;
      }
      return ServedPartition.resolve(d, o.designator(), o.arch(), given, o.certificates());
    } finally {
      RemoteArguments.close(source);
    }
  }

  /** The export of {@code served}, with the settings given besides. */
  static ExportConfig config(
      String name,
      String description,
      String data,
      ServedPartition served,
      CorruptionMode mode,
      boolean errorAsCorruption,
      boolean ignoreZeroBlocks,
      boolean checkAtMostOnce,
      IoClass ioClass,
      RemoteOptions remote) {
    return new ExportConfig(
        name,
        description.isEmpty() ? describe(served) : description,
        data,
        data,
        new ExportRoot.Partition(served.root(), served.dataOffset(), served.dataLength()),
        null,
        mode,
        errorAsCorruption,
        ignoreZeroBlocks,
        checkAtMostOnce,
        ioClass,
        null,
        remote,
        null);
  }

  /** What nbdinfo and status show: the partition, the root hash and what made it trusted. */
  static String describe(ServedPartition s) {
    return s.choice().data().describe()
        + ", root hash "
        + s.choice().rootHash()
        + (s.certificate() != null ? ", signed by " + s.certificate() : ", root hash given");
  }
}
