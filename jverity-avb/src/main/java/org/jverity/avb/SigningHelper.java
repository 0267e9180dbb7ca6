package org.jverity.avb;

import java.nio.file.Path;
import java.util.Objects;

/**
 * avbtool's {@code --signing_helper APP} / {@code --signing_helper_with_files APP}: a program that
 * holds the private key (an HSM, a signing server) and signs for the tool. It is run as {@code APP
 * ALGORITHM KEY} and given what to sign on stdin, the signature read from its stdout; or, with
 * files, as {@code APP ALGORITHM KEY FILE}, FILE holding what to sign and, when APP exits 0, the
 * signature. What it signs is avbtool's: the PKCS#1 v1.5 block (padding, DigestInfo, hash) as long
 * as the modulus, to be raised to the private exponent as is ({@code openssl rsautl -sign -raw}).
 *
 * @param program the helper, run directly (no shell)
 * @param withFiles whether it is given a file rather than pipes
 */
public record SigningHelper(Path program, boolean withFiles) {
  public SigningHelper {
    Objects.requireNonNull(program, "program");
  }

  /** The option that named it, for messages. */
  public String option() {
    return withFiles ? "--signing_helper_with_files" : "--signing_helper";
  }
}
