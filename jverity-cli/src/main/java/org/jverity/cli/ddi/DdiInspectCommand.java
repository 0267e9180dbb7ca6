package org.jverity.cli.ddi;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.ddi.Choice;
import org.jverity.ddi.DdiPartition;
import org.jverity.ddi.Dissection;
import org.jverity.ddi.Sidecars;
import org.jverity.ddi.TrustedCertificates;
import org.jverity.ddi.VeritySignature;
import org.jverity.io.FileDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.RootHashSignature;

/**
 * {@code jverity ddi inspect}: a DDI's partitions, the root hashes found and where each came from,
 * each signature partition's JSON and the certificate that made it, and what systemd-dissect would
 * use for root and usr and why; what it would ignore (a second signature partition, a misnamed
 * sidecar, a {@code .pem} certificate) said loudly, as warnings. Reads the table and the signature
 * partitions only; {@code ddi verify} checks every block.
 */
public final class DdiInspectCommand implements Command {
  Path image;
  boolean json;
  final ImageOptions options = new ImageOptions();

  public static final Syntax<DdiInspectCommand> SYNTAX =
      Syntax.command(
              "ddi inspect",
              "Show a Discoverable Disk Image's partitions, root hashes and signatures, and which"
                  + " partitions and root hash systemd-dissect would use, and why.",
              DdiInspectCommand::new)
          .parameter("IMAGE.raw", "The image.", (c, v) -> c.image = FileName.parse(v))
          .include(ImageOptions.SYNTAX, c -> c.options)
          .flag("--json", "Print the same as JSON.", c -> c.json = true)
          .abbreviations(List.of("--json"))
          .example(
              "Show what systemd-dissect would use of image.raw, trusting the certificates in keys/:",
              "jverity ddi inspect image.raw --cert-dir keys");

  @Override
  public int run(Io io) throws IOException {
    Checks.requireFile(image, "image");
    options.checkArch();
    Sidecars sidecars = Sidecars.of(image);
    TrustedCertificates certs = options.certificates();
    Dissection d;
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      d = Dissection.of(dev, options.arch, options.given(sidecars));
    }
    List<String> warnings = new ArrayList<>(d.warnings());
    warnings.addAll(sidecars.warnings());
    warnings.addAll(certs.ignored());
    if (json) {
      io.result(json(d, certs, warnings));
    } else {
      text(io.out(), d, certs, warnings);
    }
    for (String w : warnings) {
      io.err().println("jverity: WARNING: " + w);
    }
    return ExitCode.OK;
  }

  private void text(PrintWriter out, Dissection d, TrustedCertificates certs, List<String> w) {
    out.println(
        "Image: "
            + image
            + " (GPT, "
            + d.gpt().sectorSize()
            + "-byte sectors, disk "
            + d.gpt().header().diskGuid()
            + ")");
    PartitionTable.print(out, d.gpt(), d.partitions());
    for (Map.Entry<Integer, VeritySignature> e : d.signatures().entrySet()) {
      VeritySignature s = e.getValue();
      out.println("Signature partition " + e.getKey() + ": rootHash " + s.rootHash());
      out.println(
          "  certificateFingerprint "
              + (s.certificateFingerprint() == null ? "(none)" : s.certificateFingerprint())
              + "; signed by "
              + signer(s, certs));
    }
    if (d.choices().isEmpty()) {
      out.println("Would use: nothing (no root or usr partition for " + d.arch() + ")");
    }
    for (Choice c : d.choices()) {
      out.println("Would use for " + c.designator().label() + ": " + c.data().describe());
      out.println(
          "  verity: "
              + (c.verity() == null ? "none" : c.verity().describe())
              + "; root hash: "
              + (c.rootHash() == null
                  ? "none"
                  : c.rootHash() + " (from " + c.source().phrase() + ")")
              + "; signature: "
              + (c.signed() ? c.signaturePartition().describe() : "none"));
      for (String n : c.notes()) {
        out.println("  note: " + n);
      }
    }
  }

  private Map<String, Object> json(Dissection d, TrustedCertificates certs, List<String> w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("image", image.toString());
    m.put("sectorSize", d.gpt().sectorSize());
    m.put("diskGuid", d.gpt().header().diskGuid().toString());
    m.put("partitions", PartitionTable.json(d.gpt(), d.partitions()));
    List<Object> sigs = new ArrayList<>();
    for (Map.Entry<Integer, VeritySignature> e : d.signatures().entrySet()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("partition", e.getKey());
      s.put("json", e.getValue().json());
      s.put("signedBy", signer(e.getValue(), certs));
      sigs.add(s);
    }
    m.put("signatures", sigs);
    List<Object> choices = new ArrayList<>();
    for (Choice c : d.choices()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("partition", c.designator().label());
      x.put("data", c.data().entry().number());
      x.put("verity", c.verity() == null ? null : c.verity().entry().number());
      x.put("signature", c.signed() ? c.signaturePartition().entry().number() : null);
      x.put("rootHash", c.rootHash());
      x.put("rootHashSource", c.source() == null ? null : c.source().name().toLowerCase());
      x.put("notes", c.notes());
      choices.add(x);
    }
    m.put("wouldUse", choices);
    m.put("warnings", w);
    return m;
  }

  /** The trusted certificate's file that made {@code s}, or why none. */
  static String signer(VeritySignature s, TrustedCertificates certs) {
    if (certs.certificates().isEmpty()) {
      return "unknown (no trusted certificate found)";
    }
    try {
      X509Certificate c = RootHashSignature.verify(s.signature(), s.rootHash(), certs.x509());
      return certs.fileOf(c).toString();
    } catch (InvalidSignatureException e) {
      return "none of the "
          + certs.certificates().size()
          + " trusted certificates ("
          + e.getMessage()
          + ")";
    }
  }

  static String describe(DdiPartition p) {
    return p.describe();
  }
}
