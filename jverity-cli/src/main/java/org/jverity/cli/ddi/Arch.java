package org.jverity.cli.ddi;

import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.ddi.PartitionTypes;

/** {@code --arch}'s value, as every ddi command and {@code open} of a DDI check it. Stateless. */
final class Arch {
  private Arch() {}

  /** {@code arch}, when systemd names partition types for it; else a refusal listing those. */
  static String check(String arch) {
    if (!PartitionTypes.arches().contains(arch)) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          "--arch: '"
              + arch
              + "' (expected: one of "
              + String.join(", ", PartitionTypes.arches())
              + ")");
    }
    return arch;
  }
}
