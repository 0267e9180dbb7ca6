package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jverity.testkit.ParserContract;

/**
 * Any text as {@code ~/.aws/credentials} or {@code ~/.aws/config}: sections of keys, lower-cased,
 * lines it cannot read skipped (as a signer must: it has no better answer); never an exception.
 */
class AwsIniFileFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void readsWhatItCanAndSkipsTheRest(byte[] bytes) {
    List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
    ParserContract.holds(
        bytes.length,
        () -> {
          Map<String, Map<String, String>> sections = AwsIniFile.parse(lines);
          for (Map<String, String> keys : sections.values()) {
            assertThat(keys.keySet()).allMatch(k -> k.equals(k.toLowerCase(Locale.ROOT)));
          }
        });
  }
}
