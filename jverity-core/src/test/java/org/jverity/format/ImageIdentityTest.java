package org.jverity.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.hash.HashAlgorithm;

class ImageIdentityTest {
  private static final String ROOT =
      "c833f047e015bc4b2eebb5e5ceae1c0061ec2b1065a8d61c142cbfab23c4714f";
  private static final VerityParams PARAMS =
      VerityParams.builder()
          .dataBlocks(262_144)
          .salt(Hex.parse("salt", "00112233"))
          .hashOffset(8192)
          .uuid(UUID.fromString("a60c98d2-ae9b-4865-bfcb-b4e3ace11033"))
          .build();

  @Test
  void printsTheDocumentedForm() {
    ImageIdentity id = ImageIdentity.of(PARAMS, Hex.parse("root", ROOT));
    assertThat(id.toString()).isEqualTo("verity1:sha256:4096:4096:262144:1:00112233:" + ROOT);
  }

  @Test
  void roundTrips() {
    ImageIdentity id =
        ImageIdentity.of(
            PARAMS.toBuilder()
                .salt(new byte[0])
                .hashAlgorithm(HashAlgorithm.SHA1)
                .hashFormat(HashFormat.CHROME_OS)
                .dataBlockSize(512)
                .hashBlockSize(1024)
                .build(),
            new byte[20]);
    assertThat(id.toString()).isEqualTo("verity1:sha1:512:1024:262144:0:-:" + "00".repeat(20));
    assertThat(ImageIdentity.parse(id.toString())).isEqualTo(id);
    assertThat(
            ImageIdentity.parse(
                id.toString().toUpperCase().replace("VERITY1:SHA1", "verity1:sha1")))
        .isEqualTo(id);
  }

  @Test
  void givesTheParametersBack() {
    ImageIdentity id = ImageIdentity.of(PARAMS, Hex.parse("root", ROOT));
    VerityParams p = id.paramsBuilder().hashOffset(8192).uuid(PARAMS.uuid()).build();
    assertThat(p).isEqualTo(PARAMS);
  }

  @Test
  void acceptsTheParametersItWasMadeFrom() throws Exception {
    ImageIdentity.of(PARAMS, Hex.parse("root", ROOT)).check("h", PARAMS);
  }

  @Test
  void namesEveryFieldTheSuperblockContradicts() {
    ImageIdentity id = ImageIdentity.of(PARAMS, Hex.parse("root", ROOT));
    VerityParams sb = PARAMS.toBuilder().dataBlocks(300).salt(new byte[0]).build();
    assertThatThrownBy(() -> id.check("data.hash", sb))
        .isInstanceOf(IdentityMismatchException.class)
        .hasMessage(
            "data.hash: superblock contradicts the identity: data blocks 300 (identity says"
                + " 262144), salt - (identity says 00112233)");
  }

  @Test
  void tellsAnIdentityFromARootHash() {
    assertThat(ImageIdentity.isIdentity(ROOT)).isFalse();
    assertThat(ImageIdentity.isIdentity("verity1:x")).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "verity1:sha256:4096:4096:1:1:-                           | identity: 7 fields",
        "verity2:sha256:4096:4096:1:1:-:00                        | identity: version verity2",
        "verity1:md5:4096:4096:1:1:-:00                           | identity: hash algorithm: md5",
        "verity1:sha256:4097:4096:1:1:-:00                        | identity: data block size: 4097",
        "verity1:sha256:4096:99999999999:1:1:-:00                 | identity: hash block size: 99999999999",
        "verity1:sha256:4096:4096:0:1:-:00                        | identity: data blocks: 0",
        "verity1:sha256:4096:4096:01:1:-:00                       | identity: data blocks: 01 (expected: a decimal number)",
        "verity1:sha256:4096:4096:+1:1:-:00                       | identity: data blocks: +1",
        "verity1:sha256:4096:4096:9999999999999999999:1:-:00      | identity: data blocks: 9999999999999999999 (expected: at most",
        "verity1:sha256:4096:4096:1:2:-:00                        | identity: hash format: 2",
        "verity1:sha256:4096:4096:1:1::00                         | identity: salt: empty",
        "verity1:sha256:4096:4096:1:1:xyz1:00                     | identity: salt: not a hex string",
        "verity1:sha256:4096:4096:1:1:-:0011                      | identity: root hash: 2 bytes (expected: 32 for sha256)",
        "verity1:sha256:4096:4096:1:1:-:                          | identity: root hash: empty",
      })
  void refusesMalformedText(String text, String message) {
    assertThatThrownBy(() -> ImageIdentity.parse(text.strip()))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageStartingWith(message.strip());
  }

  @Test
  void aWrongFieldCountShowsTheForm() {
    assertThatThrownBy(() -> ImageIdentity.parse("verity1:sha256"))
        .hasMessageContaining("(expected: 8, " + ImageIdentity.FORM + ")");
  }
}
