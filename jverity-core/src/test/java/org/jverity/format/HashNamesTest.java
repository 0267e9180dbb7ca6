package org.jverity.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.jverity.hash.HashAlgorithm;

/**
 * A name that no algorithm answers to is a parameter error that names every algorithm there is,
 * from an option and from a superblock alike; its type tells a missing algorithm from a typo.
 */
class HashNamesTest {

  @Test
  void aKnownNameResolvesInAnyCase() {
    assertThat(HashNames.fromName("SHA256")).isSameAs(HashAlgorithm.SHA256);
    assertThat(HashNames.fromName("Sha2-256").kernelName()).isEqualTo("sha2-256");
  }

  @Test
  void anUnknownNameIsRefusedWithTheNamesThereAre() {
    assertThatThrownBy(() -> HashNames.fromName("tiger"))
        .isInstanceOf(UnsupportedHashAlgorithmException.class)
        .isInstanceOf(VerityParameterException.class)
        .hasMessageStartingWith(
            "hash algorithm: tiger (not supported; expected: sha1, sha224, sha256,")
        .hasMessageContaining(", sha3-256, ")
        .hasMessageNotContaining("sha-256") // aliases are not listed
        .satisfies(
            e ->
                assertThat(((UnsupportedHashAlgorithmException) e).algorithm()).isEqualTo("tiger"));
    assertThat(HashAlgorithm.lookup("tiger")).isEmpty();
    assertThatThrownBy(() -> HashNames.fromName(""))
        .isNotInstanceOf(UnsupportedHashAlgorithmException.class)
        .isInstanceOf(VerityParameterException.class)
        .hasMessageStartingWith("hash algorithm: \"\" (expected: sha1, ");
    assertThat(HashAlgorithm.lookup("TIGER")).isEmpty();
  }

  @Test
  void aSuperblockNamingAnUnknownAlgorithmDecodesButHasNoParams() throws Exception {
    byte[] sb =
        VeritySuperblock.of(
                VerityParams.builder().dataBlocks(8).uuid(java.util.UUID.randomUUID()).build())
            .encode();
    System.arraycopy("tiger\0".getBytes(StandardCharsets.US_ASCII), 0, sb, 32, 6);
    VeritySuperblock decoded = VeritySuperblock.decode("h.img", sb);
    assertThat(decoded.algorithm()).isEqualTo("tiger");
    assertThatThrownBy(() -> decoded.toParams(0))
        .isInstanceOf(UnsupportedHashAlgorithmException.class)
        .hasMessageStartingWith("hash algorithm: tiger (not supported");
  }
}
