package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs openssl; a missing tool fails the test naming its package, never skips it. */
final class Tools {
  private Tools() {}

  static String run(Path dir, String... command) throws IOException, InterruptedException {
    Path exe = Path.of("/usr/bin", command[0]);
    if (!Files.isExecutable(exe)) {
      fail(exe + " is missing: install the Debian/Ubuntu package '" + command[0] + "'");
    }
    List<String> cmd = new ArrayList<>(List.of(command));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s\n%s", cmd, out).isZero();
    return out;
  }

  /** An RSA key (PKCS#8) and a self-signed certificate for it: {@code name.key}, {@code name.crt}. */
  static void rsa(Path dir, String name, int bits) throws Exception {
    run(dir, "openssl", "req", "-x509", "-newkey", "rsa:" + bits, "-nodes", "-keyout", name + ".key",
        "-out", name + ".crt", "-subj", "/CN=" + name, "-days", "30");
  }

  /** A P-256 key (SEC1 with EC PARAMETERS, as ecparam writes it) and a self-signed certificate. */
  static void ec(Path dir, String name) throws Exception {
    run(dir, "openssl", "ecparam", "-name", "prime256v1", "-genkey", "-out", name + ".key");
    run(dir, "openssl", "req", "-x509", "-new", "-key", name + ".key", "-out", name + ".crt",
        "-subj", "/CN=" + name, "-days", "30");
  }
}
