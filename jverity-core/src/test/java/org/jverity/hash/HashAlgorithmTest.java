package org.jverity.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParams;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Algorithms;
import org.jverity.testing.Images;
import org.jverity.testing.ReferenceTree;
import org.jverity.tree.TreeBuilder;

/**
 * The registry: built-in names and OpenSSL's aliases resolve as veritysetup resolves them, and any
 * MessageDigest can be registered and builds trees (an unknown name's error: {@code
 * HashNamesTest}). Test registrations use names starting with {@code test-}: the registry is per
 * process.
 */
class HashAlgorithmTest {

  /** Known answers for "abc", as {@code openssl dgst} prints them (OpenSSL 3.0). */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "sha1,       a9993e364706816aba3e25717850c26c9cd0d89d",
    "sha224,     23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
    "sha256,     ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "sha512-224, 4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa",
    "sha512-256, 53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
    "sha3-224,   e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf",
    "sha3-256,   3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
  })
  void builtInDigestsGiveTheStandardAnswers(String name, String abc) {
    HashAlgorithm a = HashAlgorithm.lookup(name).orElseThrow();
    byte[] d = a.newDigest().digest("abc".getBytes(StandardCharsets.US_ASCII));
    assertThat(HexFormat.of().formatHex(d)).isEqualTo(abc);
    assertThat(d).hasSize(a.digestSize());
  }

  @Test
  void theSha3InputBlockIsTheSpongeRate() {
    assertThat(HashAlgorithm.SHA3_224.inputBlockSize()).isEqualTo(144);
    assertThat(HashAlgorithm.SHA3_256.inputBlockSize()).isEqualTo(136);
    assertThat(HashAlgorithm.SHA3_384.inputBlockSize()).isEqualTo(104);
    assertThat(HashAlgorithm.SHA3_512.inputBlockSize()).isEqualTo(72);
  }

  @Test
  void namesResolveInAnyCaseToTheConstants() {
    assertThat(HashAlgorithm.lookup("sha256").orElseThrow()).isSameAs(HashAlgorithm.SHA256);
    assertThat(HashAlgorithm.lookup("SHA256").orElseThrow()).isSameAs(HashAlgorithm.SHA256);
    assertThat(HashAlgorithm.lookup("Sha3-512").orElseThrow()).isSameAs(HashAlgorithm.SHA3_512);
    assertThat(HashAlgorithm.registered())
        .startsWith(Algorithms.BUILT_IN.toArray(HashAlgorithm[]::new));
  }

  /**
   * veritysetup writes the name it was given: sha-256 is its own algorithm with SHA-256's digests.
   */
  @Test
  void anAliasKeepsItsNameAndHashesAsTheAlgorithm() {
    HashAlgorithm alias = HashAlgorithm.lookup("SHA2-256").orElseThrow();
    assertThat(alias.kernelName()).isEqualTo("sha2-256");
    assertThat(alias.toString()).isEqualTo("sha2-256");
    assertThat(alias.sameDigest(HashAlgorithm.SHA256)).isTrue();
    assertThat(alias).isNotEqualTo(HashAlgorithm.SHA256);
    assertThat(
            HashAlgorithm.lookup("2.16.840.1.101.3.4.2.1")
                .orElseThrow()
                .sameDigest(HashAlgorithm.SHA256))
        .isTrue();
    assertThat(
            HashAlgorithm.lookup("sha-512/256").orElseThrow().sameDigest(HashAlgorithm.SHA512_256))
        .isTrue();
    assertThat(HashAlgorithm.registered()).doesNotContain(alias);
    // fs-verity knows sha256 and sha512 by those names only, as fsverity-utils does.
    assertThatThrownBy(() -> new FsVerityParams(alias, 4096, new byte[0]))
        .hasMessageContaining("expected: sha256 or sha512");
  }

  @Test
  void anyMessageDigestCanBeRegisteredAndBuildsTheTreeItsDigestDefines() throws Exception {
    HashAlgorithm md5 =
        HashAlgorithm.register(
            HashAlgorithm.of("test-md5", "MD5", 16, 64, jdk("MD5")), "Test-MD5-Alias");
    assertThat(HashAlgorithm.lookup("TEST-MD5").orElseThrow()).isSameAs(md5);
    assertThat(HashAlgorithm.lookup("test-md5-alias").orElseThrow().kernelName())
        .isEqualTo("test-md5-alias");
    assertThat(HashAlgorithm.registered()).contains(md5);
    // Registering the same again (a command line registers at every run) changes nothing.
    assertThat(HashAlgorithm.register(HashAlgorithm.of("test-md5", "MD5", 16, 64, jdk("MD5"))))
        .isSameAs(md5);

    for (HashFormat format : HashFormat.values()) {
      VerityParams p =
          VerityParams.builder()
              .blockSize(512)
              .hashAlgorithm(md5)
              .hashFormat(format)
              .dataBlocks(700)
              .salt(Images.random(1, 7))
              .superblock(false)
              .build();
      byte[] data = Images.random(2, 700 * 512);
      MemoryDevice hash = new MemoryDevice("hash");
      byte[] root = TreeBuilder.of(p).build(new MemoryDevice("data", data), hash);
      ReferenceTree.Result want = ReferenceTree.build(p, data); // the JDK's MD5, looked up by name
      assertThat(root).hasSize(16).isEqualTo(want.root());
      assertThat(hash.toByteArray()).isEqualTo(want.tree());
    }
  }

  @Test
  void aNameCannotBeTakenByAnotherDigest() {
    assertThatThrownBy(
            () -> HashAlgorithm.register(HashAlgorithm.of("sha256", "MD5", 16, 64, jdk("MD5"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hash algorithm name: sha256 (already registered for SHA-256, not MD5)");
    assertThatThrownBy(
            () ->
                HashAlgorithm.register(
                    HashAlgorithm.of("test-sha1", "SHA-1", 20, 64, jdk("SHA-1")), "sha-256"))
        .hasMessageContaining("sha-256 (already registered for SHA-256");
    assertThat(HashAlgorithm.lookup("test-sha1"))
        .as("nothing registered when one name fails")
        .isEmpty();
    assertThat(HashAlgorithm.lookup("sha-256").orElseThrow().sameDigest(HashAlgorithm.SHA256))
        .isTrue();
  }

  @Test
  void namesMustFitTheSuperblock() {
    for (String bad : new String[] {"", "a:b", "sha 256", "é", "x".repeat(32)}) {
      assertThatThrownBy(() -> HashAlgorithm.of(bad, "MD5", 16, 64, jdk("MD5")))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected: 1 to 31 printable ASCII characters, no colon");
    }
    assertThat(HashAlgorithm.of("X".repeat(31), "MD5", 16, 64, jdk("MD5")).kernelName())
        .isEqualTo("x".repeat(31));
    assertThatThrownBy(() -> HashAlgorithm.of("test-zero", "MD5", 0, 64, jdk("MD5")))
        .hasMessage("digest size: 0 (expected: at least 1)");
  }

  /** A registration that gets the size wrong would write a wrong tree; the first digest says so. */
  @Test
  void aDigestOfTheWrongSizeIsCaught() {
    HashAlgorithm wrong = HashAlgorithm.of("test-wrong-size", "MD5", 20, 64, jdk("MD5"));
    assertThatThrownBy(wrong::newDigest)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("test-wrong-size: the digest has 16 bytes (expected: 20)");
  }

  private static Supplier<MessageDigest> jdk(String name) {
    return () -> {
      try {
        return MessageDigest.getInstance(name);
      } catch (NoSuchAlgorithmException e) {
        throw new AssertionError(e);
      }
    };
  }
}
