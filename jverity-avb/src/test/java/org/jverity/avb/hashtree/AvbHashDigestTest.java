package org.jverity.avb.hashtree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.Hex;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.FileDevice;

class AvbHashDigestTest {
  @TempDir Path dir;

  private byte[] compute(byte[] content, long size, HashAlgorithm alg, byte[] salt)
      throws IOException {
    Path image = TestImages.write(dir, "image", content);
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      return AvbHashDigest.compute(dev, size, alg, salt);
    }
  }

  @Test
  void aospHashFooterVector() throws IOException {
    // AVB.md 8: 65,536-byte pattern, add_hash_footer with salt 0011…eeff (32 bytes: twice that)
    String half = "00112233445566778899aabbccddeeff";
    byte[] salt = Hex.parse("salt", half + half);
    assertThat(Hex.format(compute(TestImages.pattern(65536), 65536, HashAlgorithm.SHA256, salt)))
        .isEqualTo("0b35ced03ae9373818d5442da86e85e6f4fe12b5e95284ef78c033f93a38322f");
  }

  @Test
  void streamsMorethanOnePieceAndStopsAtTheSize() throws IOException {
    byte[] content = TestImages.random(3 * AvbHashDigest.PIECE + 17, 1);
    long size = content.length - 5; // the padding after the image is not hashed
    byte[] salt = {9, 8, 7};
    MessageDigest d = HashAlgorithm.SHA512.newDigest();
    d.update(salt);
    d.update(Arrays.copyOf(content, (int) size));
    assertThat(compute(content, size, HashAlgorithm.SHA512, salt)).isEqualTo(d.digest());
  }

  @Test
  void emptyImageIsTheSaltsDigest() throws IOException {
    byte[] salt = {1, 2};
    assertThat(compute(new byte[0], 0, HashAlgorithm.SHA256, salt))
        .isEqualTo(HashAlgorithm.SHA256.newDigest().digest(salt));
  }

  @Test
  void imageShorterThanTheSizeIsRefused() {
    assertThatThrownBy(() -> compute(new byte[10], 11, HashAlgorithm.SHA256, new byte[0]))
        .isInstanceOf(DeviceTooSmallException.class);
  }
}
