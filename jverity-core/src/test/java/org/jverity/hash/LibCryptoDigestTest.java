package org.jverity.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The libcrypto digests give the JDK's bytes, however the input is fed, and behave as a
 * MessageDigest.
 */
class LibCryptoDigestTest {

  /** The algorithms libcrypto's SHA*_Init API covers, by the prefix of its function names. */
  private static final Map<HashAlgorithm, String> OPENSSL = new LinkedHashMap<>();

  static {
    OPENSSL.put(HashAlgorithm.SHA1, "SHA1");
    OPENSSL.put(HashAlgorithm.SHA224, "SHA224");
    OPENSSL.put(HashAlgorithm.SHA256, "SHA256");
    OPENSSL.put(HashAlgorithm.SHA384, "SHA384");
    OPENSSL.put(HashAlgorithm.SHA512, "SHA512");
  }

  private static final List<HashAlgorithm> COVERED = List.copyOf(OPENSSL.keySet());

  private static MessageDigest libcrypto(HashAlgorithm a) {
    return LibCryptoDigest.of(a.jcaName(), OPENSSL.get(a), a.digestSize())
        .orElseThrow(
            () ->
                new AssertionError(
                    "no usable libcrypto for "
                        + a
                        + " (Debian: libssl3); this machine must have one"));
  }

  @Test
  void everyAlgorithmIsAvailableHereButTheJdkIsTheDefault() {
    for (HashAlgorithm a : COVERED) {
      assertThat(libcrypto(a).getDigestLength()).isEqualTo(a.digestSize());
      assertThat(a.newDigest()).isNotInstanceOf(LibCryptoDigest.class);
      assertThat(a.newJavaDigest()).isNotInstanceOf(LibCryptoDigest.class);
    }
  }

  @Property(tries = 300)
  void sameBytesAsTheJdkWhateverTheSplits(
      @ForAll @IntRange(min = 0, max = 4) int alg,
      @ForAll @IntRange(min = 0, max = 20000) int length,
      @ForAll @IntRange(min = 1, max = 5000) int piece,
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 2) int feed) {
    HashAlgorithm a = COVERED.get(alg);
    byte[] data = new byte[length];
    new SplittableRandom(seed).nextBytes(data);
    MessageDigest ours = libcrypto(a);
    for (int at = 0; at < length; at += piece) {
      int n = Math.min(piece, length - at);
      switch (feed) {
        case 0 -> ours.update(data, at, n);
        case 1 -> ours.update(ByteBuffer.allocateDirect(n).put(data, at, n).flip());
        default -> ours.update(ByteBuffer.wrap(data, at, n));
      }
    }
    assertThat(ours.digest()).isEqualTo(a.newJavaDigest().digest(data));
    // digest() resets: the same object hashes the next input from scratch
    ours.update((byte) 7);
    assertThat(ours.digest()).isEqualTo(a.newJavaDigest().digest(new byte[] {7}));
  }

  @Test
  void aCloneCarriesTheStateAndIsIndependent() throws Exception {
    MessageDigest salted = libcrypto(HashAlgorithm.SHA256);
    salted.update(new byte[64]); // a padded salt, as fs-verity hashes it
    MessageDigest copy = (MessageDigest) salted.clone();
    copy.update("block".getBytes());
    byte[] fromCopy = copy.digest();
    salted.update("other".getBytes()); // the copy's updates did not reach the original
    MessageDigest jdk = HashAlgorithm.SHA256.newJavaDigest();
    jdk.update(new byte[64]);
    jdk.update("other".getBytes());
    assertThat(salted.digest()).isEqualTo(jdk.digest());
    jdk.update(new byte[64]);
    jdk.update("block".getBytes());
    assertThat(fromCopy).isEqualTo(jdk.digest());
  }

  @Test
  void digestIntoAnArrayAtAnOffsetAfterAReset() throws Exception {
    MessageDigest d = libcrypto(HashAlgorithm.SHA512);
    d.update(new byte[] {1, 2, 3});
    d.reset();
    d.update(new byte[] {4});
    byte[] out = new byte[70];
    assertThat(d.digest(out, 3, 67)).isEqualTo(64);
    assertThat(Arrays.copyOfRange(out, 3, 67))
        .isEqualTo(HashAlgorithm.SHA512.newJavaDigest().digest(new byte[] {4}));
    assertThat(out[0]).isZero();
    assertThatThrownBy(() -> d.digest(out, 10, 60)).isInstanceOf(DigestException.class);
  }

  /**
   * A mapped file that shrank under its mapping: the update fails with the JDK's error, where
   * libcrypto reading the mapping in place would end the JVM; bytes still mapped hash as the JDK's.
   */
  @Test
  void aMappedFileThatShrankFailsTheUpdateInsteadOfTheJvm(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("data");
    byte[] data = new byte[3 * 4096];
    new SplittableRandom(3).nextBytes(data);
    Files.write(file, data);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, data.length);
      MessageDigest d = libcrypto(HashAlgorithm.SHA256);
      d.update(mapped.duplicate());
      assertThat(d.digest()).isEqualTo(HashAlgorithm.SHA256.newJavaDigest().digest(data));
      ch.truncate(0);
      assertThatThrownBy(() -> d.update(mapped.duplicate())).isInstanceOf(InternalError.class);
    }
  }
}
