package org.jverity.testkit;

import java.nio.file.Path;

/** openssl, making the keys, certificates and PKCS#7 signatures the signature tests check. */
public final class Openssl {
  private static final Tool TOOL = Tool.of("openssl");

  private Openssl() {}

  /** openssl, for a command this class has no name for. */
  public static Tool tool() {
    return TOOL;
  }

  /** openssl run in {@code dir}, for a command this class has no name for. */
  public static Tool in(Path dir) {
    return TOOL.in(dir);
  }

  /**
   * An RSA key (PKCS#8) and its self-signed certificate, in {@code dir}: {@code name.key}, {@code
   * name.crt}.
   */
  public static void rsa(Path dir, String name, int bits) {
    TOOL.in(dir)
        .check(
            "req",
            "-x509",
            "-newkey",
            "rsa:" + bits,
            "-nodes",
            "-keyout",
            name + ".key",
            "-out",
            name + ".crt",
            "-subj",
            "/CN=" + name,
            "-days",
            "30");
  }

  /** A P-256 key (SEC1 with EC PARAMETERS, as ecparam writes it) and a self-signed certificate. */
  public static void ec(Path dir, String name) {
    TOOL.in(dir).check("ecparam", "-name", "prime256v1", "-genkey", "-out", name + ".key");
    TOOL.in(dir)
        .check(
            "req",
            "-x509",
            "-new",
            "-key",
            name + ".key",
            "-out",
            name + ".crt",
            "-subj",
            "/CN=" + name,
            "-days",
            "30");
  }
}
