package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.AvbTestKeys;

/**
 * AVB.md 8's add_hash_footer vector, assembled from this package's parts (the layout the tool
 * writes: image, vbmeta padded to 4096, zeros, footer block): a 65,536-byte {@code
 * generate_test_image} pattern in a 1 MiB partition "boot", salt 00112233…eeff twice (32 bytes: the
 * only reading of AVB.md's "0011…eeff" that gives its digest and its 1344-byte aux block),
 * SHA256_RSA4096 with AOSP's test key, rollback index 5, {@code --prop com.example.foo:bar}. The
 * whole image's sha256 is avbtool's.
 */
class HashFooterVectorTest {
  @TempDir Path dir;

  @Test
  void signedHashFooterImageIsAvbtools() throws Exception {
    byte[] data = new byte[65536];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) i;
    }
    byte[] salt = HexFormat.of().parseHex("00112233445566778899aabbccddeeff".repeat(2));
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    sha256.update(salt);
    byte[] digest = sha256.digest(data);
    assertThat(HexFormat.of().formatHex(digest))
        .isEqualTo("0b35ced03ae9373818d5442da86e85e6f4fe12b5e95284ef78c033f93a38322f");

    AvbSigner signer =
        AvbSigner.of(
            AvbAlgorithm.SHA256_RSA4096,
            AvbPublicKey.readPrivateKey(AvbTestKeys.copy("testkey_rsa4096.pem", dir)));
    byte[] vbmeta =
        new VbmetaBuilder(signer)
            .rollbackIndex(5)
            .descriptors(
                List.of(
                    new HashDescriptor(data.length, "sha256", "boot", salt, digest, 0),
                    PropertyDescriptor.of("com.example.foo", "bar")))
            .build();
    VbmetaImage parsed = VbmetaImage.parse(vbmeta);
    assertThat(vbmeta).hasSize(2176);
    assertThat(parsed.header().authenticationDataBlockSize()).isEqualTo(576);
    assertThat(parsed.header().auxiliaryDataBlockSize()).isEqualTo(1344);

    int partition = 1 << 20;
    byte[] image = new byte[partition];
    System.arraycopy(data, 0, image, 0, data.length);
    System.arraycopy(vbmeta, 0, image, data.length, vbmeta.length);
    AvbFooter footer = AvbFooter.of(data.length, data.length, vbmeta.length);
    System.arraycopy(footer.encode(), 0, image, partition - AvbFooter.SIZE, AvbFooter.SIZE);
    assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(image)))
        .isEqualTo("71de947465fd1df50c6afd0366f61e88ebea1845d871b5b6cb9ad07c2de86837");

    // and read back as a verifier reads it
    MemoryDevice device = new MemoryDevice("boot.img", image);
    AvbFooter read = AvbFooter.read(device).orElseThrow();
    VbmetaImage again = VbmetaImage.read(device, read);
    assertThat(again.verifySignature()).isTrue();
    assertThat(again.descriptors()).isEqualTo(parsed.descriptors());
  }
}
