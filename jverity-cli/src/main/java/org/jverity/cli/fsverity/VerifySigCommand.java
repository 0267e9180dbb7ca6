package org.jverity.cli.fsverity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.Signing;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.format.Hex;
import org.jverity.fsverity.FsVerityDigest;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.sig.FsVeritySignature;
import org.jverity.sig.InvalidSignatureException;

/**
 * {@code jverity verify-sig}: whether a PKCS#7 signature (as {@code fsverity sign} writes it) signs
 * a file's fs-verity digest under a trusted certificate, the check the kernel's keyring makes.
 */
public final class VerifySigCommand implements Command {
  Path file;
  Path sig;
  List<Path> certs;
  boolean json;
  final FsVerityOptions options = new FsVerityOptions();

  public static final Syntax<VerifySigCommand> SYNTAX =
      Syntax.command(
              "verify-sig",
              "Check that SIG (DER PKCS#7, as fsverity sign writes it) signs the fs-verity digest of FILE"
                  + " with the key of a trusted certificate. Exit 0 when it does, 14 when it does not.",
              VerifySigCommand::new)
          .parameter("FILE", "Signed file.", (c, v) -> c.file = FileName.parse(v))
          .parameter("SIG", "Signature file.", (c, v) -> c.sig = FileName.parse(v))
          .requiredOption(
              "--cert, --trusted-cert",
              "CERT.pem",
              "Trusted certificate(s) (PEM; repeatable, several per file"
                  + " allowed), as every other command's --trusted-cert (--cert is the same option).",
              (c, v) -> c.certs = Syntax.append(c.certs, FileName.parse(v)))
          .include(FsVerityOptions.SYNTAX, c -> c.options)
          .flag(
              "--json",
              "Print the result as JSON on stdout: file, signature, hash algorithm, digest and signer.",
              c -> c.json = true)
          .abbreviations()
          .example(
              "Check that app.sig signs app.bin's digest by the holder of cert.pem:",
              "jverity verify-sig app.bin app.sig --cert cert.pem");

  @Override
  public int run(Io io) throws IOException, InvalidSignatureException {
    Checks.requireFile(file, "input");
    Checks.requireFile(sig, "signature");
    FsVerityParams params = options.params();
    HashAlgorithm alg = params.algorithm();
    List<X509Certificate> trusted = Signing.certificates(certs);
    byte[] signature = Files.readAllBytes(sig);
    byte[] digest = FsVerityFileDigest.compute(file, params);
    X509Certificate by = FsVeritySignature.verify(signature, digest, alg, trusted);
    String signer = by.getSubjectX500Principal().getName();
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("file", file.toString());
      m.put("signature", sig.toString());
      m.put("hashAlgorithm", alg.kernelName());
      m.put("digest", Hex.format(digest));
      m.put("signer", signer);
      io.result(m);
    } else {
      io.out()
          .println(
              "Verified file '"
                  + file
                  + "' ("
                  + new FsVerityDigest(alg, digest)
                  + "), signed by '"
                  + signer
                  + "'");
    }
    return ExitCode.OK;
  }
}
