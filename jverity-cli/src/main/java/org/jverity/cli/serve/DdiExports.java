package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.jverity.cli.ddi.DdiOpenOptions;
import org.jverity.ddi.Dissection.GivenHashes;
import org.jverity.ddi.RootHashSource;
import org.jverity.ddi.ServedPartition;
import org.jverity.image.Locations;
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

  /** Whether the local file {@code data} is a GPT disk image (its signature at 512 or 4096). */
  static boolean isDisk(String data) throws IOException {
    Path file = Locations.file(data);
    if (file == null || !Files.isRegularFile(file)) {
      return false;
    }
    try (FileDevice d = FileDevice.openChannel(file, false)) {
      for (long at : new long[] {512, 4096}) {
        if (d.size() >= at + 8) {
          byte[] b = new byte[8];
          d.readFully(at, b, 0, 8);
          if (Arrays.equals(b, "EFI PART".getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The partition of {@code data} to serve, its trust established, or why not. */
  static ServedPartition resolve(String data, DdiOpenOptions o, String rootHash)
      throws IOException, InvalidSignatureException {
    Path file = Locations.file(data);
    GivenHashes given =
        rootHash == null
            ? GivenHashes.NONE
            : o.designator() == org.jverity.ddi.Designator.ROOT
                ? new GivenHashes(rootHash, RootHashSource.OPTION, null, null)
                : new GivenHashes(null, null, rootHash, RootHashSource.OPTION);
    try (FileDevice d = FileDevice.openChannel(file, false)) {
      return ServedPartition.resolve(d, o.designator(), o.arch(), given, o.certificates());
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
