package org.jverity.ddi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as a signature partition: its JSON, or one {@link DdiFormatException}; what parses
 * writes back to JSON that parses to the same signature.
 */
class VeritySignatureFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          VeritySignature s = VeritySignature.parse("fuzz", bytes);
          VeritySignature again = VeritySignature.parse("again", s.encode());
          if (!again.equals(s)) {
            throw new AssertionError("re-encoded differently: " + s + " vs " + again);
          }
        },
        DdiFormatException.class);
  }
}
