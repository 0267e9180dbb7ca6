package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.ddi.Dissection.GivenHashes;
import org.jverity.ddi.PartitionTypes;
import org.jverity.ddi.RootHashSource;
import org.jverity.ddi.Sidecars;
import org.jverity.ddi.TrustedCertificates;

/**
 * What {@code ddi inspect} and {@code ddi verify} read a DDI with: the architecture, root hashes
 * given on the command line (else the sidecars, else the signature partition) and the certificate
 * directories (systemd's verity.d by default).
 */
final class ImageOptions {
  String arch = PartitionTypes.nativeArch();
  String rootHash;
  String usrHash;
  final List<Path> certDirs = new ArrayList<>();

  static final Syntax<ImageOptions> SYNTAX =
      Syntax.<ImageOptions>group()
          .option(
              "--arch",
              "ARCH",
              "The architecture whose partitions to use (default: this machine's), as"
                  + " systemd-dissect.",
              (o, v) -> o.arch = v)
          .option(
              "--root-hash",
              "HEX",
              "The root partition's root hash (instead of a sidecar or the signature partition).",
              (o, v) -> o.rootHash = hex("--root-hash", v))
          .option(
              "--usr-hash",
              "HEX",
              "The usr partition's root hash.",
              (o, v) -> o.usrHash = hex("--usr-hash", v))
          .option(
              "--cert-dir",
              "DIR",
              "Trust the *.crt certificates of DIR (repeatable; default: /etc/verity.d,"
                  + " /run/verity.d, /usr/local/lib/verity.d, /usr/lib/verity.d, as systemd).",
              (o, v) -> o.certDirs.add(FileName.parse(v)));

  private static String hex(String option, String v) {
    String h = v.toLowerCase(Locale.ROOT);
    if (h.isEmpty() || h.length() % 2 != 0 || !h.chars().allMatch(HexFormat::isHexDigit)) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, option + ": '" + v + "' (expected: hex digits)");
    }
    return h;
  }

  void checkArch() {
    Arch.check(arch);
  }

  /** The root hashes from the options, else the sidecars. */
  GivenHashes given(Sidecars sidecars) {
    String root = rootHash != null ? rootHash : sidecars.root();
    String usr = usrHash != null ? usrHash : sidecars.usr();
    return new GivenHashes(
        root,
        rootHash != null ? RootHashSource.OPTION : RootHashSource.SIDECAR,
        usr,
        usrHash != null ? RootHashSource.OPTION : RootHashSource.SIDECAR);
  }

  TrustedCertificates certificates() throws IOException {
    return CertDirs.trusted(certDirs);
  }
}
