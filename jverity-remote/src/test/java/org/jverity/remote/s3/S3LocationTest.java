package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class S3LocationTest {
  @Test
  void bucketAndKeyWithSlashesAndCharactersNeedingEncoding() {
    S3Location l = S3Location.parse("s3://images/fleet/2026 q4/root+é.img");

    assertThat(l.bucket()).isEqualTo("images");
    assertThat(l.key()).isEqualTo("fleet/2026 q4/root+é.img");
    assertThat(l.versionId()).isNull();
    assertThat(l).hasToString("s3://images/fleet/2026 q4/root+é.img");
  }

  @Test
  void versionIdIsTakenOffTheKey() {
    S3Location l = S3Location.parse("s3://b/dir/k.img?versionId=3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY");

    assertThat(l.key()).isEqualTo("dir/k.img");
    assertThat(l.versionId()).isEqualTo("3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY");
  }

  @Test
  void missingPartsAreNamedInOneLine() {
    assertThatThrownBy(() -> S3Location.parse("s3://"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("S3 URL has no bucket (s3://bucket/key): s3://");
    assertThatThrownBy(() -> S3Location.parse("s3://bucket"))
        .hasMessage("S3 URL names a bucket, not an object (s3://bucket/key): s3://bucket");
    assertThatThrownBy(() -> S3Location.parse("s3://bucket/"))
        .hasMessage("S3 URL names a bucket, not an object (s3://bucket/key): s3://bucket/");
    assertThatThrownBy(() -> S3Location.parse("s3:///key")).hasMessageContaining("no bucket");
    assertThatThrownBy(() -> S3Location.parse("https://b/k")).hasMessageContaining("not an S3 URL");
    assertThatThrownBy(() -> S3Location.parse("s3://b/k?versionId="))
        .hasMessageContaining("empty versionId");
  }
}
