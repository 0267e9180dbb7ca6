package org.jverity.cli.fsverity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.Signing;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.format.Hex;
import org.jverity.fsverity.FsVerityDigest;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.AtomicOutput;
import org.jverity.sig.FsVeritySignature;

/**
 * {@code jverity sign}: a file's fs-verity digest signed into a DER PKCS#7 signature, byte for byte
 * {@code fsverity sign}'s, for the kernel's built-in signature check or a userspace verifier.
 */
public final class SignCommand implements Command {
  Path file;
  Path out;
  Path key;
  Path cert;
  boolean json;
  final FsVerityOptions options = new FsVerityOptions();

  public static final Syntax<SignCommand> SYNTAX =
      Syntax.command(
              "sign",
              "Sign the fs-verity digest of FILE into OUT_SIG (DER PKCS#7), as fsverity sign does:"
                  + " byte-identical for RSA keys.",
              SignCommand::new)
          .parameter("FILE", "File to sign.", (c, v) -> c.file = FileName.parse(v))
          .parameter("OUT_SIG", "Signature file to write.", (c, v) -> c.out = OutputFile.parse(v))
          .requiredOption(
              "--key",
              "KEY.pem",
              "Private key (PEM: RSA or EC, PKCS#8, PKCS#1 or SEC1).",
              (c, v) -> c.key = FileName.parse(v))
          .requiredOption(
              "--cert",
              "CERT.pem",
              "The key's X.509 certificate (PEM).",
              (c, v) -> c.cert = FileName.parse(v))
          .include(FsVerityOptions.SYNTAX, c -> c.options)
          .flag(
              "--json",
              "Print the result as JSON on stdout: file, signature, hash algorithm and digest.",
              c -> c.json = true)
          .abbreviations(List.of("--json"))
          .example(
              "Sign app.bin's fs-verity digest with key.pem and its certificate, as fsverity sign does:",
              "jverity sign app.bin app.sig --key key.pem --cert cert.pem");

  @Override
  public int run(Io io) throws IOException {
    Checks.requireFile(file, "input");
    new DistinctFiles()
        .input("file", file)
        .input("--key file", key)
        .input("--cert file", cert)
        .output("OUT_SIG", out)
        .check();
    FsVerityParams params = options.params();
    HashAlgorithm alg = params.algorithm();
    Signing signing = Signing.load(key, cert);
    byte[] digest = FsVerityFileDigest.compute(file, params);
    byte[] sig = signing.sign(k -> FsVeritySignature.sign(digest, alg, k.key(), k.cert()));
    AtomicOutput.write(out, sig);
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("file", file.toString());
      m.put("signature", out.toString());
      m.put("hashAlgorithm", alg.kernelName());
      m.put("digest", Hex.format(digest));
      io.result(m);
    } else {
      io.out().println("Signed file '" + file + "' (" + new FsVerityDigest(alg, digest) + ")");
    }
    return ExitCode.OK;
  }
}
