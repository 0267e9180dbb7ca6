package org.jverity.sig;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.jverity.testkit.ParserContract;

/**
 * Any file given as a PEM (or DER) certificate or a PEM private key: its certificates or key, or
 * one {@link IOException} naming the file.
 */
class PemFuzzTest {
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
  }
}
