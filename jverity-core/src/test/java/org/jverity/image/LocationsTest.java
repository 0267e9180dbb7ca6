package org.jverity.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule for what is a URL (jverity-remote's RemoteOptions.isRemote asks it too). */
class LocationsTest {
  @Test
  void onlyHttpHttpsAndS3UrlsAreRemote() {
    for (String l : List.of("http://h/x", "https://h/x", "s3://b/k")) {
      assertThat(Locations.isRemote(l)).as(l).isTrue();
    }
    for (String l : List.of("d.img", "/abs/d.img", "./s3://x", "S3://b/k", "ftp://h/x", "")) {
      assertThat(Locations.isRemote(l)).as(l).isFalse();
    }
    assertThat(Locations.isRemote(null)).isFalse();
    assertThat(Locations.anyRemote("d.img", null, "s3://b/k")).isTrue();
    assertThat(Locations.file("https://h/x")).isNull();
  }

  @Test
  void aUrlIsShownWithoutCredentials() {
    assertThat(Locations.withoutQuery("https://h/d.img?X-Amz-Signature=abc"))
        .isEqualTo("https://h/d.img");
    assertThat(Locations.withoutQuery("https://user:pw@h:8443/d.img"))
        .isEqualTo("https://h:8443/d.img");
    assertThat(Locations.withoutQuery("s3://b/k")).isEqualTo("s3://b/k");
  }
}
