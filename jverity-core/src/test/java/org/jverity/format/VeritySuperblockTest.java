package org.jverity.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.hash.HashAlgorithm;

class VeritySuperblockTest {
  private static final VerityParams PARAMS =
      VerityParams.builder()
          .hashAlgorithm(HashAlgorithm.SHA512)
          .hashFormat(HashFormat.CHROME_OS)
          .dataBlockSize(1024)
          .hashBlockSize(2048)
          .dataBlocks(123_456_789L)
          .hashOffset(8192)
          .salt(Hex.parse("salt", "00112233"))
          .uuid(UUID.fromString("a60c98d2-ae9b-4865-bfcb-b4e3ace11033"))
          .build();

  @Test
  void encodesTheLayoutVeritysetupWrites() {
    byte[] b = VeritySuperblock.of(PARAMS).encode();
    assertThat(b).hasSize(512);
    assertThat(Arrays.copyOf(b, 8)).isEqualTo("verity\0\0".getBytes());
    assertThat(b[8]).isEqualTo((byte) 1); // version, little-endian
    assertThat(b[12]).isZero(); // hash type 0
    assertThat(Hex.format(Arrays.copyOfRange(b, 16, 32)))
        .isEqualTo("a60c98d2ae9b4865bfcbb4e3ace11033");
    assertThat(new String(b, 32, 6)).isEqualTo("sha512");
    assertThat(b[32 + 6]).isZero();
    assertThat(Hex.format(Arrays.copyOfRange(b, 64, 82)))
        .isEqualTo("00040000" + "00080000" + "15cd5b0700000000" + "0400");
    assertThat(Hex.format(Arrays.copyOfRange(b, 88, 92))).isEqualTo("00112233");
    assertThat(Arrays.copyOfRange(b, 92, 512)).containsOnly(0);
  }

  @Test
  void decodesWhatItEncodes() throws Exception {
    byte[] b = VeritySuperblock.of(PARAMS).encode();
    assertThat(VeritySuperblock.decode("h", b).toParams(8192)).isEqualTo(PARAMS);
  }

  @ParameterizedTest(name = "byte {0} = {1}: {2}")
  @CsvSource({
    "0, 0x56, signature",
    "8, 2, version 2",
    "12, 2, hash type 2",
    "64, 0x01, data block size",
    "69, 0x11, hash block size",
    "81, 0x02, salt size 516",
  })
  void rejectsEachBrokenField(int offset, String value, String message) {
    byte[] b = VeritySuperblock.of(PARAMS).encode();
    b[offset] = (byte) Integer.decode(value).intValue();
    assertThatThrownBy(() -> VeritySuperblock.decode("h.img", b))
        .isInstanceOf(SuperblockException.class)
        .hasMessageStartingWith("h.img: ")
        .hasMessageContaining(message.split(" ")[0]);
  }

  @Test
  void rejectsAnUnterminatedAlgorithmName() {
    byte[] b = VeritySuperblock.of(PARAMS).encode();
    Arrays.fill(b, 32, 64, (byte) 'a');
    assertThatThrownBy(() -> VeritySuperblock.decode("h", b))
        .hasMessageContaining("not terminated");
  }

  @Provide
  Arbitrary<byte[]> superblocks() {
    byte[] valid = VeritySuperblock.of(PARAMS).encode();
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofSize(512);
    Arbitrary<byte[]> mutated =
        Arbitraries.integers()
            .between(0, 511)
            .list()
            .ofMaxSize(6)
            .flatMap(
                positions ->
                    Arbitraries.bytes()
                        .list()
                        .ofSize(positions.size())
                        .map(
                            values -> {
                              byte[] b = valid.clone();
                              for (int i = 0; i < positions.size(); i++) {
                                b[positions.get(i)] = values.get(i);
                              }
                              return b;
                            }));
    return Arbitraries.oneOf(random, mutated);
  }

  @Property(tries = 2000)
  void garbageIsEitherASuperblockOrOneClearError(
      @ForAll("superblocks") byte[] bytes, @ForAll @IntRange(max = 1) int unused) {
    try {
      VeritySuperblock sb = VeritySuperblock.decode("fuzz", bytes);
      try {
        sb.toParams(0);
      } catch (VerityParameterException e) {
        assertThat(e.getMessage()).doesNotContain("\n");
      }
    } catch (SuperblockException e) {
      assertThat(e.getMessage()).startsWith("fuzz: ").doesNotContain("\n");
    }
  }
}
