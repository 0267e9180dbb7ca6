package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;
import org.jverity.ddi.Choice;
import org.jverity.ddi.DdiVerifier;
import org.jverity.ddi.Dissection;
import org.jverity.ddi.Sidecars;
import org.jverity.ddi.TrustedCertificates;
import org.jverity.ddi.VerifyReport;
import org.jverity.io.FileDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.tree.Corruption;

/**
 * {@code jverity ddi verify}: what systemd-dissect would use of a DDI, checked as its userspace
 * path checks it (the signature against the {@code *.crt} of the verity.d directories) and then
 * every block of the data partition against its verity partition; each mismatch one line naming the
 * partition and the block. Exit 0 when everything verifies, 8 for corrupted blocks, 7 for a root
 * hash the tree does not have, 14 for a signature no trusted certificate made, 19 for an image that
 * is no DDI systemd would use.
 */
public final class DdiVerifyCommand implements Command {
  Path image;
  boolean json;
  final ImageOptions options = new ImageOptions();

  public static final Syntax<DdiVerifyCommand> SYNTAX =
      Syntax.command(
              "ddi verify",
              "Verify a Discoverable Disk Image by systemd's userspace rules: the signature"
                  + " partition against the trusted certificates, then every block of the data"
                  + " partition against its verity partition.",
              DdiVerifyCommand::new)
          .parameter("IMAGE.raw", "The image.", (c, v) -> c.image = FileName.parse(v))
          .include(ImageOptions.SYNTAX, c -> c.options)
          .flag("--json", "Print the result as JSON.", c -> c.json = true)
          .abbreviations(List.of("--json"))
          .example(
              "Verify image.raw, trusting the certificates in keys/:",
              "jverity ddi verify image.raw --cert-dir keys");

  @Override
  public int run(Io io) throws IOException, InvalidSignatureException {
    Checks.requireFile(image, "image");
    options.checkArch();
    Sidecars sidecars = Sidecars.of(image);
    TrustedCertificates certs = options.certificates();
    for (String w : sidecars.warnings()) {
      io.err().println("jverity: WARNING: " + w);
    }
    for (String w : certs.ignored()) {
      io.err().println("jverity: WARNING: " + w);
    }
    List<VerifyReport> reports = new ArrayList<>();
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      Dissection d = Dissection.of(dev, options.arch, options.given(sidecars));
      for (String w : d.warnings()) {
        io.err().println("jverity: WARNING: " + w);
      }
      if (d.choices().isEmpty()) {
        throw new CliException(
            ExitCode.DDI_INVALID, image + ": no root or usr partition for " + d.arch());
      }
      for (Choice c : d.choices()) {
        long work = c.data().entry().size(d.gpt().sectorSize());
        try (ProgressBar bar = ProgressBar.start("ddi verify", work, System.err)) {
          reports.add(DdiVerifier.verify(dev, d.gpt(), c, certs, bar));
          bar.finish();
        }
      }
    }
    int code = ExitCode.OK;
    for (VerifyReport r : reports) {
      String part = r.choice().designator().label();
      for (Corruption x : r.check().corruptions()) {
        io.err()
            .println(
                "jverity: "
                    + part
                    + ": "
                    + r.choice().data().describe()
                    + ": "
                    + x.describe()
                    + " is corrupted");
      }
      if (!r.check().rootMatches() && r.check().corruptions().isEmpty()) {
        io.err()
            .println("jverity: " + part + ": the tree's root hash is not " + r.choice().rootHash());
      }
      if (!r.ok()) {
        code =
            r.check().rootMatches() || !r.check().corruptions().isEmpty()
                ? ExitCode.CORRUPTION
                : ExitCode.ROOT_HASH_MISMATCH;
      }
    }
    if (json) {
      List<Object> list = new ArrayList<>();
      for (VerifyReport r : reports) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partition", r.choice().designator().label());
        m.put("data", r.choice().data().entry().number());
        m.put("verity", r.choice().verity().entry().number());
        m.put("rootHash", r.choice().rootHash());
        m.put("rootHashSource", r.choice().source().name().toLowerCase());
        m.put("signedBy", r.certificate() == null ? null : r.certificate().toString());
        m.put("ok", r.ok());
        m.put("corruptions", r.check().corruptionCount());
        list.add(m);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("image", image.toString());
      m.put("verified", list);
      io.result(m);
    } else if (code == ExitCode.OK) {
      for (VerifyReport r : reports) {
        io.out()
            .println(
                r.choice().designator().label()
                    + ": "
                    + r.choice().data().describe()
                    + " verified (root hash "
                    + r.choice().rootHash()
                    + " from "
                    + r.choice().source().phrase()
                    + (r.certificate() != null ? ", signed by " + r.certificate() : ", unsigned")
                    + ")");
      }
    }
    return code;
  }
}
