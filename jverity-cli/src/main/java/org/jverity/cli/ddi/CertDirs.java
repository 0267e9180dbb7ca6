package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.ddi.TrustedCertificates;

/** {@code --cert-dir}'s directories, as inspect, verify and open of a DDI read them. Stateless. */
final class CertDirs {
  private CertDirs() {}

  /**
   * The certificates of {@code given}, or of systemd's verity.d directories when none is given. A
   * directory given that does not exist is refused: systemd's own may be absent, but one a user
   * named and mistyped would otherwise trust nothing, silently.
   */
  static TrustedCertificates trusted(List<Path> given) throws IOException {
    for (Path dir : given) {
      if (!Files.isDirectory(dir)) {
        throw new CliException(ExitCode.IO_ERROR, "--cert-dir: " + dir + ": no such directory");
      }
    }
    return TrustedCertificates.in(given.isEmpty() ? TrustedCertificates.SYSTEM_DIRS : given);
  }
}
