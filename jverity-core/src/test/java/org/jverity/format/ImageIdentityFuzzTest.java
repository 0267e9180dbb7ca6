package org.jverity.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.jverity.testkit.ParserContract;

/**
 * Any text (UTF-8, as a seed file holds it) given where an identity ({@code verity1:alg:...}) is
 * expected.
 */
class ImageIdentityFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    ParserContract.holds(
        bytes.length,
        () -> {
          ImageIdentity id = ImageIdentity.parse(text);
          assertThat(ImageIdentity.parse(id.toString())).isEqualTo(id);
        },
        VerityParameterException.class);
  }
}
