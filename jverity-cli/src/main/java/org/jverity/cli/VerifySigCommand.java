package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.Callable;
import org.jverity.format.HashAlgorithm;
import org.jverity.format.Hex;
import org.jverity.sig.FsVeritySignature;
import org.jverity.sig.InvalidSignatureException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "verify-sig",
    description = "Check that SIG (DER PKCS#7, as fsverity sign writes it) signs the fs-verity digest of FILE"
        + " with the key of a trusted certificate. Exit 0 when it does, 14 when it does not.")
final class VerifySigCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Signed file.")
  Path file;

  @Parameters(index = "1", paramLabel = "SIG", description = "Signature file.")
  Path sig;

  @Option(names = "--cert", required = true, paramLabel = "CERT.pem",
      description = "Trusted certificate(s) (PEM; repeatable, several per file allowed).")
  List<Path> certs;

  @Mixin FsVerityOptions options;

  @Override
  public Integer call() throws IOException, InvalidSignatureException {
    Checks.requireFile(file, "input");
    Checks.requireFile(sig, "signature");
    HashAlgorithm alg = options.algorithm();
    int blockSize = options.blockSize();
    byte[] salt = options.salt();
    List<X509Certificate> trusted = Signing.certificates(certs);
    byte[] signature = Files.readAllBytes(sig);
    byte[] digest = FsVerityFileDigest.compute(file, alg, blockSize, salt);
    X509Certificate by = FsVeritySignature.verify(signature, digest, alg, trusted);
    spec.commandLine().getOut().println("Verified file '" + file + "' (" + alg + ":" + Hex.format(digest)
        + "), signed by '" + by.getSubjectX500Principal().getName() + "'");
    return ExitCode.OK;
  }
}
