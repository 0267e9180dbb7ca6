package org.jverity.cli.ddi;

import java.nio.file.Path;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.ddi.Designator;
import org.jverity.ddi.ExtraType;
import org.jverity.ddi.PartitionTypes;

/**
 * One {@code ddi build --extra TYPE:FILE}: a partition of a type systemd names ({@code esp}, {@code
 * home}, ...) or of a type UUID, holding FILE's bytes. Immutable.
 *
 * @param type the partition's type
 * @param file what it holds
 */
record ExtraFile(ExtraType type, Path file) {
  /** {@code TYPE:FILE}, the type by systemd's name or as a UUID. */
  static ExtraFile parse(String v) {
    int colon = v.indexOf(':');
    if (colon <= 0 || colon == v.length() - 1) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          "--extra: '" + v + "' (expected: TYPE:FILE, such as esp:efi.vfat)");
    }
    try {
      return new ExtraFile(
          ExtraType.parse(v.substring(0, colon)), FileName.parse(v.substring(colon + 1)));
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--extra: " + e.getMessage());
    }
  }

  /**
   * Refuses a type of the verity set being built: systemd-dissect would find two root partitions
   * for one architecture (or two verity partitions) and refuse the image.
   */
  void requireOutside(Designator data, String arch) {
    boolean own =
        PartitionTypes.byUuid(type.uuid())
            .filter(t -> t.designator().data() == data && t.arch().equals(arch))
            .isPresent();
    if (own) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          "--extra "
              + type
              + ":"
              + file
              + ": the type of the image's own "
              + data.label()
              + " partitions (expected: another type)");
    }
  }
}
