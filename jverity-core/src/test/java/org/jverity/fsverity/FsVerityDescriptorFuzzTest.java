package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jverity.format.VerityParameterException;
import org.jverity.testkit.ParserContract;

/** Any bytes given as an fs-verity descriptor (a signed file's, a measured one's). */
class FsVerityDescriptorFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void decodesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          FsVerityDescriptor d = FsVerityDescriptor.decode(bytes);
          // decode refuses non-zero padding and reserved bytes, so what it accepts is canonical.
          assertThat(d.encode()).isEqualTo(bytes);
          d.formattedDigest();
        },
        VerityParameterException.class);
  }
}
