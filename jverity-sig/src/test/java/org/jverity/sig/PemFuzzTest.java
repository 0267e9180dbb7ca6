package org.jverity.sig;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.jverity.testkit.ParserContract;

/**
 * Any file given as a PEM (or DER) certificate, a PEM private key (alone or with its public key) or
 * a PEM public key: its certificates or key, or one {@link IOException} naming the file.
 */
class PemFuzzTest {
  /** What BouncyCastle allocates to expand an ML-DSA-87 seed into its key pair, with room. */
  private static final long ML_DSA_KEY_GENERATION = 16L << 20;

  private static Path file;

  @BeforeAll
  static void scratch() throws IOException {
    file = Files.createTempFile("pem-fuzz", ".pem");
  }

  @AfterAll
  static void remove() throws IOException {
    Files.delete(file);
  }

  @FuzzTest(maxDuration = "2m")
  void readsOrRefuses(byte[] bytes) throws IOException {
    Files.write(file, bytes);
    ParserContract.holds(bytes.length, () -> Pem.readCertificates(file), IOException.class);
    ParserContract.holds(bytes.length, () -> Pem.readPrivateKey(file), IOException.class);
    // An ML-DSA key read from its seed is expanded (FIPS 204 key generation): a fixed working
    // set of a few MB whatever the input, on top of what parsing the input may take.
    ParserContract.holdsWithin(
        ParserContract.allocationBound(bytes.length) + ML_DSA_KEY_GENERATION,
        () -> Pem.readKeyPair(file),
        IOException.class);
    ParserContract.holds(bytes.length, () -> Pem.readPublicKey(file), IOException.class);
  }
}
