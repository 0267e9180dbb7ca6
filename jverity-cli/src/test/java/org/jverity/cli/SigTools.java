package org.jverity.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.testkit.Openssl;

/**
 * Signatures for the signature tests, made by openssl (the test kit's {@link Openssl}), and
 * forgeries of them.
 */
public final class SigTools {
  private SigTools() {}

  /** An RSA key and its self-signed certificate: {@code name.key}, {@code name.crt}. */
  public static void rsa(Path dir, String name) throws Exception {
    Openssl.rsa(dir, name, 2048);
  }

  /**
   * openssl smime (PKCS7_sign) over the file {@code in}: {@code -nocerts -noattr} unless {@code
   * cms}.
   */
  static Path opensslSign(Path dir, String in, String out, String md, boolean cms)
      throws Exception {
    if (cms) {
      Openssl.in(dir)
          .check(
              "cms",
              "-sign",
              "-binary",
              "-in",
              in,
              "-signer",
              "signer.crt",
              "-inkey",
              "signer.key",
              "-md",
              md,
              "-outform",
              "der",
              "-out",
              out);
    } else {
      Openssl.in(dir)
          .check(
              "smime",
              "-sign",
              "-nocerts",
              "-noattr",
              "-binary",
              "-in",
              in,
              "-signer",
              "signer.crt",
              "-inkey",
              "signer.key",
              "-md",
              md,
              "-outform",
              "der",
              "-out",
              out);
    }
    return dir.resolve(out);
  }

  /** Writes a copy of {@code sig} with one byte flipped, {@code from} bytes before its end. */
  static Path flipped(Path sig, int from) throws Exception {
    byte[] b = Files.readAllBytes(sig);
    b[b.length - from] ^= 0x01;
    Path out = sig.resolveSibling(sig.getFileName() + ".forged");
    Files.write(out, b);
    return out;
  }

  static Path truncated(Path sig, int length) throws Exception {
    Path out = sig.resolveSibling(sig.getFileName() + ".cut" + length);
    Files.write(out, java.util.Arrays.copyOf(Files.readAllBytes(sig), length));
    return out;
  }
}
