package org.jverity.avb;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as a descriptor array: the descriptors, which encode to bytes that parse to the same
 * descriptors, or one {@link AvbFormatException}.
 */
class DescriptorsFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          List<Descriptor> d = Descriptors.parse(bytes, 0, bytes.length);
          byte[] encoded = Descriptors.encode(d);
          if (!Descriptors.parse(encoded, 0, encoded.length).equals(d)) {
            throw new AssertionError("descriptors did not survive a re-encoding: " + d);
          }
        },
        AvbFormatException.class);
  }
}
