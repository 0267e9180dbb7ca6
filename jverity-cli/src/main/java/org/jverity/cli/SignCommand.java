package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jverity.format.HashAlgorithm;
import org.jverity.format.Hex;
import org.jverity.sig.FsVeritySignature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "sign",
    description = "Sign the fs-verity digest of FILE into OUT_SIG (DER PKCS#7), as fsverity sign does:"
        + " byte-identical for RSA keys.")
final class SignCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "File to sign.")
  Path file;

  @Parameters(index = "1", paramLabel = "OUT_SIG", description = "Signature file to write.")
  Path out;

  @Option(names = "--key", required = true, paramLabel = "KEY.pem", description = "Private key (PEM: RSA or EC, PKCS#8, PKCS#1 or SEC1).")
  Path key;

  @Option(names = "--cert", required = true, paramLabel = "CERT.pem", description = "The key's X.509 certificate (PEM).")
  Path cert;

  @Mixin FsVerityOptions options;

  @Override
  public Integer call() throws IOException {
    Checks.requireFile(file, "input");
    HashAlgorithm alg = options.algorithm();
    int blockSize = options.blockSize();
    byte[] salt = options.salt();
    Signing signing = Signing.load(key, cert);
    byte[] digest = FsVerityFileDigest.compute(file, alg, blockSize, salt);
    byte[] sig = signing.sign(k -> FsVeritySignature.sign(digest, alg, k.key(), k.cert()));
    Files.write(out, sig);
    spec.commandLine().getOut().println("Signed file '" + file + "' (" + alg + ":" + Hex.format(digest) + ")");
    return ExitCode.OK;
  }
}
