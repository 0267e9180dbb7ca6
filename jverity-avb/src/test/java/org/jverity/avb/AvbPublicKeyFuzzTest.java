package org.jverity.avb;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as an AVB public-key blob (a chain descriptor's or a vbmeta's key, an {@code --avb-key}
 * file): a key whose blob is the same bytes, or one {@link AvbFormatException}.
 */
class AvbPublicKeyFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void decodesOrRefuses(byte[] bytes) {
    ParserContract.holds(bytes.length, () -> AvbPublicKey.decode(bytes), AvbFormatException.class);
    // a decoded key encodes to a blob of the same shape, or is refused as no key AVB can carry
    // (an even or short modulus: libavb would compute with it, avbtool could not have written it)
    ParserContract.holds(
        bytes.length,
        () -> {
          byte[] again = AvbPublicKey.blob(AvbPublicKey.decode(bytes));
          if (!Arrays.equals(again, 0, 4, bytes, 0, 4) || again.length != bytes.length) {
            throw new AssertionError("blob re-encoded to another shape");
          }
        },
        AvbFormatException.class,
        IllegalArgumentException.class);
  }
}
