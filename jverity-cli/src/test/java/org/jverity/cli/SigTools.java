package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** openssl and fsverity for the signature tests; a missing tool fails naming its package. */
public final class SigTools {
  private SigTools() {}

  /** Runs a tool in {@code dir}; its exit code must be 0. Returns stdout and stderr together. */
  public static String run(Path dir, String... command) throws Exception {
    Path exe = Path.of("/usr/bin", command[0]);
    if (!Files.isExecutable(exe)) {
      fail(exe + " is missing: install the Debian/Ubuntu package '" + command[0] + "'");
    }
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s\n%s", List.of(command), out).isZero();
    return out;
  }

  /** An RSA key and its self-signed certificate: {@code name.key}, {@code name.crt}. */
  public static void rsa(Path dir, String name) throws Exception {
    run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key",
        "-out", name + ".crt", "-subj", "/CN=" + name, "-days", "30");
  }

  /** openssl smime (PKCS7_sign) over the file {@code in}: {@code -nocerts -noattr} unless {@code cms}. */
  static Path opensslSign(Path dir, String in, String out, String md, boolean cms) throws Exception {
    if (cms) {
      run(dir, "openssl", "cms", "-sign", "-binary", "-in", in, "-signer", "signer.crt", "-inkey", "signer.key",
          "-md", md, "-outform", "der", "-out", out);
    } else {
      run(dir, "openssl", "smime", "-sign", "-nocerts", "-noattr", "-binary", "-in", in, "-signer", "signer.crt",
          "-inkey", "signer.key", "-md", md, "-outform", "der", "-out", out);
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
