package org.jverity.hashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.hash.HashAlgorithm;

/**
 * The digests {@link VeritysetupHashes} registers, without veritysetup: known answers from {@code
 * openssl dgst} (OpenSSL 3.0 with its legacy provider, what veritysetup hashes with here) and, for
 * the names only libgcrypt takes, from libgcrypt 1.10 ({@code gcry_md_hash_buffer}, by cryptsetup's
 * names: {@code stribog256}, {@code blake2b_256}, ...); and every way of feeding a digest gives the
 * same bytes. The CLI's {@code HashAlgorithmCompatTest} compares whole trees with veritysetup,
 * {@link EmbedderTest} an image read through the core alone.
 */
class VeritysetupHashesTest {
  /**
   * RFC 6986's first example message (63 bytes); libgcrypt's and the kernel's Streebog agree on it.
   */
  static final String M1 = "012345678901234567890123456789012345678901234567890123456789012";

  @BeforeAll
  static void register() {
    VeritysetupHashes.register();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // openssl dgst -NAME of "abc"
    "blake2b-512, abc, ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
    "blake2s-256, abc, 508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982",
    "sm3,         abc, 66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
    "ripemd160,   abc, 8eb208f7e05d987a9b044a8e98c6b087f15a0bfc",
    "whirlpool,   abc, 4e2448a4c6f486bb16b6562c73b4020bf3043e3a731bce721ae1b303d97e6d4c7181eebdb6c57e277d0e34957114cbd6c797fc9d95d8b582d225292076d4eef5",
    "md5,         abc, 900150983cd24fb0d6963f7d28e17f72",
    "md4,         abc, a448017aaf21d8525fc10ae87aa6729d",
    "md5-sha1,    abc, 900150983cd24fb0d6963f7d28e17f72a9993e364706816aba3e25717850c26c9cd0d89d",
    "shake128,    abc, 5881092dd818bf5cf8a3ddb793fbcba7",
    "shake256,    abc, 483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739",
    "keccak-kmac-128, abc, 3bcfe6e0471a2168f61c444843e32aea0a09ec15bd9155f169189147f98c11fc",
    "keccak-kmac-256, abc, f4e4a2d747910716f38c8ec58a5a50f6b0ea4ebd1e4c92a19e9b36ae640580f1fda41b8b534dfc57a1a719528dadc28e3e6181daba9dc9595e459e249b2bcd95",
    // libgcrypt, by cryptsetup's gcrypt names
    "stribog256,  abc, 4e2919cf137ed41ec4fb6270c61826cc4fffb660341e0af3688cd0626d23b481",
    "stribog512,  abc, 28156e28317da7c98f4fe2bed6b542d0dab85bb224445fcedaf75d46e26d7eb8d5997f3e0915dd6b7f0aab08d9c8beb0d8c64bae2ab8b3c8c6bc53b3bf0db728",
    "stribog256,  " + M1 + ", 9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500",
    "stribog512,  "
        + M1
        + ", 1b54d01a4af5b9d5cc3d86d68d285462b19abc2475222f35c085122be4ba1ffa00ad30f8767b3a82384c6574f024c311e2a481332b08ef7f41797891c1646f48",
    "blake2b-384, abc, 6f56a82c8e7ef526dfe182eb5212f7db9df1317e57815dbda46083fc30f54ee6c66ba83be64b302d7cba6ce15bb556f4",
    "blake2b-256, abc, bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319",
    "blake2b-160, abc, 384264f676f39536840523f284921cdc68b6846b",
    "blake2s-224, abc, 0b033fc226df7abde29f67a05d3dc62cf271ef3dfea4d387407fbd55",
    "blake2s-160, abc, 5ae3b99be29b01834c3b508521ede60438f8de17",
    "blake2s-128, abc, aa4938119b1dc7b87cbad0ffd200d0ae",
  })
  void digestsGiveTheReferenceAnswers(String name, String message, String want) {
    HashAlgorithm a = HashNames.fromName(name);
    byte[] got = a.newDigest().digest(message.getBytes(StandardCharsets.US_ASCII));
    assertThat(HexFormat.of().formatHex(got)).isEqualTo(want);
    assertThat(got).hasSize(a.digestSize());
  }

  /** Block hashing feeds heap arrays, heap and direct buffers, in pieces; all give one answer. */
  @Test
  void everyWayOfFeedingGivesTheSameDigest() throws Exception {
    byte[] data = new byte[10_000];
    new SplittableRandom(7).nextBytes(data);
    for (HashAlgorithm a : HashAlgorithm.registered()) {
      MessageDigest d = a.newDigest();
      byte[] whole = d.digest(data);
      for (int piece : new int[] {1, 63, 64, 4096}) {
        for (int at = 0; at < data.length; at += piece) {
          int n = Math.min(piece, data.length - at);
          switch (at / piece % 3) {
            case 0 -> d.update(data, at, n);
            case 1 -> d.update(ByteBuffer.allocateDirect(n).put(data, at, n).flip());
            default -> d.update(ByteBuffer.wrap(data, at, n));
          }
        }
        byte[] out = new byte[a.digestSize() + 3];
        assertThat(d.digest(out, 3, a.digestSize()))
            .as("%s, pieces of %d", a, piece)
            .isEqualTo(a.digestSize());
        assertThat(java.util.Arrays.copyOfRange(out, 3, out.length))
            .as("%s, pieces of %d", a, piece)
            .isEqualTo(whole);
      }
    }
  }

  /** The veritysetup names, and no other, are registered under their own name, once. */
  @Test
  void theRegisteredNamesAreVeritysetups() {
    VeritysetupHashes.register(); // again: nothing changes
    assertThat(HashAlgorithm.registered().stream().map(HashAlgorithm::kernelName))
        .containsExactly(
            "sha1",
            "sha224",
            "sha256",
            "sha384",
            "sha512",
            "sha512-224",
            "sha512-256",
            "sha3-224",
            "sha3-256",
            "sha3-384",
            "sha3-512",
            "blake2b-512",
            "blake2s-256",
            "sm3",
            "ripemd160",
            "whirlpool",
            "md5",
            "md4",
            "md5-sha1",
            "shake128",
            "shake256",
            "keccak-kmac-128",
            "keccak-kmac-256",
            "stribog256",
            "stribog512",
            "blake2b-384",
            "blake2b-256",
            "blake2b-160",
            "blake2s-224",
            "blake2s-160",
            "blake2s-128");
  }
}
