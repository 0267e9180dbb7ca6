package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;

class FsVerityDigestTest {
  private static final String SHA256 =
      "sha256:3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95";

  @Test
  void printsWhatItParsedInLowerCase() {
    FsVerityDigest d = FsVerityDigest.parse(SHA256.toUpperCase());
    assertThat(d.algorithm()).isEqualTo(HashAlgorithm.SHA256);
    assertThat(d.bytes()).hasSize(32).startsWith((byte) 0x3d, (byte) 0x24);
    assertThat(d).hasToString(SHA256).isEqualTo(FsVerityDigest.parse(SHA256));
    assertThat(d.matches(FsVerityDigest.parse(SHA256))).isTrue();
    assertThat(new FsVerityDigest(HashAlgorithm.SHA512, new byte[64]).toString())
        .isEqualTo("sha512:" + "00".repeat(64));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "3d248ca5|fs-verity digest: 3d248ca5 (expected: sha256:HEX or sha512:HEX)",
        "sha1:3d248ca5|fs-verity digest algorithm: sha1 (expected: sha256 or sha512)",
        "sha256:3d24|fs-verity digest: 2 bytes (expected: 32 for sha256)",
        "sha512:zz|fs-verity digest"
      })
  void refusesWhatIsNotAnFsVerityDigest(String text, String message) {
    assertThatThrownBy(() -> FsVerityDigest.parse(text))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageStartingWith(message);
  }
}
