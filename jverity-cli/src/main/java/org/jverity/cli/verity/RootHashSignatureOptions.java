package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Signing;
import org.jverity.cli.syntax.Syntax;
import org.jverity.image.RootCheck;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.RootHashSignatureCheck;

/**
 * {@code --root-hash-signature} and {@code --trusted-cert}: the image's root hash must be signed
 * (detached PKCS#7 over its lower-case hex, as the kernel's {@code root_hash_sig_key_desc} checks)
 * by a trusted certificate before anything is read. {@code verify}, {@code read} and {@code open}
 * take them as options; {@code serve}'s config as the keys {@code root-hash-signature} and {@code
 * trusted-cert} of an export, through the same declaration. Not changed once the command runs.
 */
public final class RootHashSignatureOptions {
  public Path signature;
  public List<Path> trusted;

  public static final Syntax<RootHashSignatureOptions> SYNTAX =
      Syntax.<RootHashSignatureOptions>group()
          .file(
              "--root-hash-signature",
              "FILE",
              "Detached PKCS#7 signature (DER) of the root hash; needs --trusted-cert.",
              (c, p) -> c.signature = p)
          .file(
              "--trusted-cert",
              "PEM",
              "Certificate(s) trusted to sign root hashes (PEM; repeatable).",
              (c, p) -> c.trusted = Syntax.append(c.trusted, p));

  /** Whether a signature is to be checked. */
  public boolean given() {
    return signature != null;
  }

  /**
   * Checks the signature of {@code root} when one is given.
   *
   * @throws InvalidSignatureException when it is not a trusted certificate's signature of it
   */
  public void check(byte[] root) throws IOException, InvalidSignatureException {
    if (signature == null) {
      if (trusted != null) {
        throw new CliException(ExitCode.USAGE, "--trusted-cert needs --root-hash-signature");
      }
      return;
    }
    if (trusted == null) {
      throw new CliException(ExitCode.USAGE, "--root-hash-signature needs --trusted-cert");
    }
    signatureCheck().check(root);
  }

  /**
   * The check these options ask for ({@link RootCheck#NONE} without a signature), for an opener to
   * run.
   */
  public RootCheck rootCheck() {
    return signature == null && trusted == null ? RootCheck.NONE : this::check;
  }

  /**
   * jverity-sig's check, reading the files when it runs: the signature first, then the
   * certificates.
   */
  private RootHashSignatureCheck signatureCheck() {
    Path sig = signature;
    List<Path> certs = trusted;
    return new RootHashSignatureCheck(
        () -> {
          Checks.requireFile(sig, "signature");
          return Files.readAllBytes(sig);
        },
        () -> Signing.certificates(certs));
  }

  /** Early option checks, before any file is opened. */
  public void checkGiven() {
    if ((signature == null) != (trusted == null)) {
      throw new CliException(
          ExitCode.USAGE,
          signature == null
              ? "--trusted-cert needs --root-hash-signature"
              : "--root-hash-signature needs --trusted-cert");
    }
  }
}
