package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.jverity.io.MemoryDevice;

/**
 * {@link VbmetaImage#parse} and {@link VbmetaImage#read}: avb_vbmeta_image_verify's header checks.
 */
class VbmetaImageTest {
  static byte[] unsigned() throws Exception {
    return new VbmetaBuilder(AvbSigner.NONE)
        .descriptors(List.of(InfoImageTest.sampleHashtree()))
        .build();
  }

  @Test
  void parsesWhatTheBuilderWrote() throws Exception {
    byte[] blob = unsigned();
    VbmetaImage image = VbmetaImage.parse(blob);
    assertThat(image.descriptors()).containsExactly(InfoImageTest.sampleHashtree());
    assertThat(image.encode()).isEqualTo(blob);
    assertThat(VbmetaHeader.parse(blob, 0).encode()).isEqualTo(Arrays.copyOf(blob, 256));
    // padding after the blob is not part of it
    assertThat(VbmetaImage.parse(Arrays.copyOf(blob, 4096)).encode()).isEqualTo(blob);
  }

  @Test
  void refusesABadMagic() throws Exception {
    byte[] blob = unsigned();
    blob[3] = '1';
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta magic: not 'AVB0'");
  }

  @Test
  void refusesAVersionTooNew() throws Exception {
    byte[] blob = unsigned();
    ByteBuffer.wrap(blob).putInt(8, 4);
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta required libavb version: 1.4 (expected: at most 1.3)");
    ByteBuffer.wrap(blob).putInt(8, 0).putInt(4, 2);
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .hasMessage("vbmeta required libavb version: 2.0 (expected: at most 1.3)");
  }

  @Test
  void refusesATruncatedBlob() throws Exception {
    byte[] blob = unsigned();
    assertThatThrownBy(() -> VbmetaImage.parse(Arrays.copyOf(blob, 100)))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta header: 100 bytes (expected: 256)");
    assertThatThrownBy(() -> VbmetaImage.parse(Arrays.copyOf(blob, blob.length - 1)))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            "vbmeta blocks: header 256 + auth 0 + aux 256 bytes (expected: at most the 511 bytes"
                + " given)");
  }

  @Test
  void refusesBlockSizesNotAMultipleOf64() throws Exception {
    byte[] blob = unsigned();
    ByteBuffer.wrap(blob).putLong(20, 255);
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta block sizes: auth 0, aux 255 (expected: multiples of 64)");
  }

  @Test
  void refusesFieldsOutsideTheirBlocks() throws Exception {
    byte[] blob = unsigned();
    ByteBuffer.wrap(blob).putLong(64, 0xf0).putLong(72, 17); // public key [0xf0, +17) in 256
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta public key [240, +17) (expected: inside the 256-byte auxiliary block)");
    byte[] overflow = unsigned();
    ByteBuffer.wrap(overflow).putLong(32, -1L).putLong(40, 2); // hash offset + size wraps
    assertThatThrownBy(() -> VbmetaImage.parse(overflow))
        .hasMessageStartingWith("vbmeta hash [18446744073709551615, +2)");
    byte[] descriptors = unsigned();
    ByteBuffer.wrap(descriptors).putLong(104, 264);
    assertThatThrownBy(() -> VbmetaImage.parse(descriptors))
        .hasMessage("vbmeta descriptors [0, +264) (expected: inside the 256-byte auxiliary block)");
  }

  @Test
  void refusesAReleaseStringWithoutNul() throws Exception {
    byte[] blob = unsigned();
    Arrays.fill(blob, 128, 176, (byte) 'x');
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta release string: no NUL in its 48 bytes");
  }

  @Test
  void refusesAnUnknownAlgorithmAndAWrongHashSize() throws Exception {
    byte[] blob = unsigned();
    ByteBuffer.wrap(blob).putInt(28, 9);
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("vbmeta algorithm_type: 9 (expected: 0..8)");
    ByteBuffer.wrap(blob).putInt(28, 1);
    assertThatThrownBy(() -> VbmetaImage.parse(blob))
        .hasMessage("vbmeta hash_size: 0 (expected: 32 for SHA256_RSA2048)");
  }

  @Test
  void readsFromTheFooterOrOffsetZero() throws Exception {
    byte[] blob = unsigned();
    byte[] image = new byte[3 * 4096];
    System.arraycopy(blob, 0, image, 4096, blob.length);
    AvbFooter footer = AvbFooter.of(4096, 4096, blob.length);
    System.arraycopy(footer.encode(), 0, image, image.length - 64, 64);
    MemoryDevice device = new MemoryDevice("system.img", image);
    assertThat(AvbFooter.read(device)).contains(footer);
    assertThat(VbmetaImage.read(device, AvbFooter.read(device).orElseThrow()).encode())
        .isEqualTo(blob);

    MemoryDevice partition = new MemoryDevice("vbmeta.img", Arrays.copyOf(blob, 4096));
    assertThat(AvbFooter.read(partition)).isEmpty();
    assertThat(VbmetaImage.read(partition, null).encode()).isEqualTo(blob);
  }

  @Test
  void readRefusesAFooterVbmetaLargerThanLibavbReads() throws Exception {
    byte[] image = new byte[8192];
    AvbFooter footer = AvbFooter.of(0, 0, VbmetaImage.MAX_SIZE + 1);
    MemoryDevice device = new MemoryDevice("big.img", image);
    assertThatThrownBy(() -> VbmetaImage.read(device, footer))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("big.img: AVB footer vbmeta_size 65537 (expected: at most 65536)");
    assertThatThrownBy(() -> VbmetaImage.read(device, AvbFooter.of(0, 8000, 256)))
        .hasMessage("big.img: vbmeta [8000, +256) (expected: inside the image's 8192 bytes)");
  }
}
