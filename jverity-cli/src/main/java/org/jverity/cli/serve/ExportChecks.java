package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.verity.RootHashSignatureOptions;
import org.jverity.cli.verity.Trust;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.image.VerityImage;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportOpener;
import org.jverity.server.ExportRoot;
import org.jverity.server.ServerLog;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.CorruptionMode;

/**
 * The command line's way for the server to open an export: the files checked as every command
 * checks them, the options' conflicts phrased as {@code verify} phrases them ({@link Trust}), an
 * unsigned root hash refused naming the export, and the {@link StartupCheck} before listening.
 * Stateless.
 */
final class ExportChecks implements ExportOpener {
  static final ExportChecks INSTANCE = new ExportChecks();

  private ExportChecks() {}

  /** The signature options as an export holds them (files and check); null when none are given. */
  static ExportConfig.Signature signature(RootHashSignatureOptions o) {
    return o == null || !o.given()
        ? null
        : new ExportConfig.Signature(
            o.signature, o.trusted == null ? List.of() : o.trusted, o.rootCheck());
  }

  @Override
  public VerityImage open(ExportConfig export, DeviceSource source) throws IOException {
    requireLocal(export.data(), "data"); // a URL is the origin's to answer for
    requireLocal(export.hash(), "hash");
    VerityImage image;
    try {
      image =
          switch (export.root()) {
            case ExportRoot.Given g ->
                Trust.open(
                    source,
                    export.data(),
                    export.hash(),
                    g.overrides(),
                    g.rootText(),
                    export.rootCheck());
            case ExportRoot.Known k ->
                VerityImage.open(
                    source, export.data(), export.hash(), k.root(), export.rootCheck());
            case ExportRoot.Partition p ->
                VerityImage.open(
                    source,
                    export.data(),
                    p.dataOffset(),
                    p.dataLength(),
                    export.hash(),
                    p.root(),
                    export.rootCheck());
          };
    } catch (GeneralSecurityException e) {
      throw new CliException(
          ExitCode.SIGNATURE_INVALID,
          "export " + ServerLog.display(export.name()) + ": " + e.getMessage());
    }
    if (export.fec() != null) {
      try {
        FecOptions.check(export.fec().device(), export.fec().offset());
      } catch (IOException | RuntimeException e) {
        image.close();
        throw e;
      }
    }
    return image;
  }

  private static void requireLocal(String location, String what) {
    Path file = Locations.file(location);
    if (file != null) {
      Checks.requireFile(file, what);
    }
  }

  @Override
  public void checkServable(
      ExportConfig export, VerityImage image, BlockRepairer fec, ServerLog log) throws IOException {
    StartupCheck.check(
        export.name(),
        image,
        fec,
        export.ignoreZeroBlocks(),
        export.mode() == CorruptionMode.IGNORE,
        log);
  }
}
