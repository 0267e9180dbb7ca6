package org.jverity.remote.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** The header parsed strictly: anything malformed is null, so it can never pass for a range. */
class ContentRangeTest {
  @Test
  void aRangeAndAnUnsatisfiedRangeParse() {
    assertThat(ContentRange.parse("bytes 0-4095/65536"))
        .isEqualTo(new ContentRange(0, 4095, 65536));
    assertThat(ContentRange.parse("bytes */0")).isEqualTo(new ContentRange(-1, -1, 0));
    assertThat(ContentRange.parse("bytes 5-9/*")).isEqualTo(new ContentRange(5, 9, -1));
  }

  @Test
  void malformedOrImpossibleRangesAreNull() {
    for (String h :
        new String[] {
          null,
          "",
          "bytes",
          "items 0-1/2",
          "bytes 0-4095",
          "bytes 9-5/10",
          "bytes 0-10/10",
          "bytes -1-5/10",
          "bytes a-b/c",
          "bytes 0-99999999999999999999/1"
        }) {
      assertThat(ContentRange.parse(h)).as(h).isNull();
    }
  }

  @Test
  void s3ErrorCodesAreFoundInTheBody() {
    assertThat(
            ErrorBody.s3Code(
                "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Reduce</Message>"))
        .isEqualTo("SlowDown");
    assertThat(ErrorBody.s3Code("<html>503</html>")).isNull();
  }

  @Test
  void aDescriptionHasNoCredentialsOrSignature() {
    assertThat(
            HttpOrigin.describe(
                URI.create(
                    "https://user:pw@example.com:8443/b/k%20x.img?X-Amz-Signature=abc&X-Amz-Credential=AKIA")))
        .isEqualTo("https://example.com:8443/b/k%20x.img");
    assertThat(HttpOrigin.describe(URI.create("http://127.0.0.1/a.img")))
        .isEqualTo("http://127.0.0.1/a.img");
  }
}
