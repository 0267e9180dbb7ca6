package org.jverity.cli.command;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.jverity.sig.Pem;

/**
 * A signing key and its certificate, read from PEM files named on the command line; key and
 * certificate problems become one-line {@link CliException}s.
 *
 * @param key the private key
 * @param cert the first certificate of the certificate file
 */
public record Signing(PrivateKey key, X509Certificate cert) {

  public static Signing load(Path keyFile, Path certFile) throws IOException {
    Checks.requireFile(keyFile, "key");
    Checks.requireFile(certFile, "certificate");
    return new Signing(Pem.readPrivateKey(keyFile), Pem.readCertificates(certFile).getFirst());
  }

  /** Every certificate of every file, in order. */
  public static List<X509Certificate> certificates(List<Path> files) throws IOException {
    List<X509Certificate> all = new ArrayList<>();
    for (Path f : files) {
      Checks.requireFile(f, "certificate");
      all.addAll(Pem.readCertificates(f));
    }
    return all;
  }

  public interface Signer {
    public byte[] sign(Signing s) throws GeneralSecurityException;
  }

  /**
   * Runs {@code signer}; a key it cannot use (not the certificate's, unsupported) is a parameter
   * error.
   */
  public byte[] sign(Signer signer) {
    try {
      return signer.sign(this);
    } catch (GeneralSecurityException e) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "cannot sign: " + e.getMessage());
    }
  }
}
