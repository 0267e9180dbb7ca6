package org.jverity.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jverity.testkit.ParserContract;

/** Any 512 bytes (or fewer, or more) on a hash device: a superblock or a one-line refusal. */
class VeritySuperblockFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void decodesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          VeritySuperblock sb = VeritySuperblock.decode("fuzz", bytes);
          // What decode accepts, encode writes back and decode reads the same.
          assertThat(VeritySuperblock.decode("again", sb.encode())).isEqualTo(sb);
          try {
            sb.toParams(0);
          } catch (VerityParameterException e) {
            // an unknown algorithm or sizes that do not fit: toParams' documented refusal
          }
        },
        SuperblockException.class);
  }
}
