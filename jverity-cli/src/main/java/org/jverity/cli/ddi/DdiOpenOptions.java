package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.UsageException;
import org.jverity.ddi.Designator;
import org.jverity.ddi.PartitionTypes;
import org.jverity.ddi.TrustedCertificates;

/**
 * {@code open}'s options for a DDI given as DATA: which data partition, for which architecture, and
 * the certificates its signature partition is checked against.
 */
public final class DdiOpenOptions {
  String partition = "root";
  String arch = PartitionTypes.nativeArch();
  final List<Path> certDirs = new ArrayList<>();

  public static final Syntax<DdiOpenOptions> SYNTAX =
      Syntax.<DdiOpenOptions>group()
          .option(
              "--partition",
              "root|usr",
              "DATA is a DDI: serve this data partition (default root), verified against its verity"
                  + " partition; the root hash from its signature partition, signed by a trusted"
                  + " certificate, or --root-hash-file.",
              (o, v) -> o.partition = v)
          .option(
              "--arch",
              "ARCH",
              "DATA is a DDI: the architecture whose partitions to serve (default: this machine's).",
              (o, v) -> o.arch = v)
          .option(
              "--cert-dir",
              "DIR",
              "DATA is a DDI: trust the *.crt certificates of DIR (repeatable; default: systemd's"
                  + " verity.d directories).",
              (o, v) -> o.certDirs.add(FileName.parse(v)));

  /**
   * The options as a {@code serve} config's section gives them ({@code partition}, {@code arch},
   * {@code cert-dir}): null for a key not given, its default then.
   */
  public static DdiOpenOptions of(String partition, String arch, Path certDir) {
    DdiOpenOptions o = new DdiOpenOptions();
    if (partition != null) {
      o.partition = partition;
    }
    if (arch != null) {
      o.arch = arch;
    }
    if (certDir != null) {
      o.certDirs.add(certDir);
    }
    return o;
  }

  /** The options' names, as {@code open} spells them. */
  private static final List<String> NAMES = List.of("--partition", "--arch", "--cert-dir");

  /**
   * Refuses these options when {@code data} is no disk image: given to an ordinary open, they would
   * be silently ignored.
   */
  public void refuseGiven(Set<String> given, String data) {
    for (String name : NAMES) {
      if (given.contains(name)) {
        throw new UsageException(
            name
                + " is for a DDI (expected: DATA a GPT disk image, and no HASH); "
                + data
                + " is not one");
      }
    }
  }

  public Designator designator() {
    try {
      return Designator.dataNamed(partition);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--partition: " + e.getMessage());
    }
  }

  public String arch() {
    return Arch.check(arch);
  }

  public TrustedCertificates certificates() throws IOException {
    return CertDirs.trusted(certDirs);
  }
}
