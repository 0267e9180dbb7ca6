package org.jverity.avb;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as an AVB footer, and as the end of an image: a footer or one {@link
 * AvbFormatException}; a parsed footer re-encodes to the bytes it came from, but for the reserved
 * bytes.
 */
class AvbFooterFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          AvbFooter footer = AvbFooter.parse(bytes, 0);
          byte[] again = footer.encode();
          if (!Arrays.equals(again, 0, 36, bytes, 0, 36)) {
            throw new AssertionError("footer re-encoded differently: " + footer);
          }
        },
        AvbFormatException.class);
    ParserContract.holds(
        bytes.length,
        () -> AvbFooter.read(new MemoryDevice("fuzz.img", bytes)),
        AvbFormatException.class);
  }
}
