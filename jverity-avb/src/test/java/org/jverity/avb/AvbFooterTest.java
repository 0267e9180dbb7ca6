package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.jverity.io.MemoryDevice;

/** {@link AvbFooter} against AVB.md 1's example and libavb's footer checks. */
class AvbFooterTest {
  static final String EXAMPLE =
      "41564266"
          + "00000001"
          + "00000000"
          + "0000000000100000"
          + "0000000000103000"
          + "0000000000000200"
          + "00".repeat(28);

  @Test
  void encodesAvbMdExample() {
    AvbFooter footer = AvbFooter.of(1048576, 1060864, 512);
    assertThat(HexFormat.of().formatHex(footer.encode())).isEqualTo(EXAMPLE);
  }

  @Test
  void parsesAvbMdExample() throws Exception {
    byte[] b = HexFormat.of().parseHex("ff" + EXAMPLE);
    assertThat(AvbFooter.parse(b, 1)).isEqualTo(new AvbFooter(1, 0, 1048576, 1060864, 512));
  }

  @Test
  void roundTrips() throws Exception {
    AvbFooter footer = new AvbFooter(1, 7, 123456789012L, 987654321L, 4242);
    assertThat(AvbFooter.parse(footer.encode(), 0)).isEqualTo(footer);
  }

  @Test
  void refusesAMajorVersionTooNewButNotAMinor() throws Exception {
    byte[] b = AvbFooter.of(1, 2, 3).encode();
    ByteBuffer.wrap(b).putInt(8, 99);
    assertThat(AvbFooter.parse(b, 0).versionMinor()).isEqualTo(99);
    ByteBuffer.wrap(b).putInt(4, 2);
    assertThatThrownBy(() -> AvbFooter.parse(b, 0))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("AVB footer version_major: 2 (expected: at most 1)");
  }

  @Test
  void refusesTruncatedAndWrongMagic() {
    byte[] b = AvbFooter.of(1, 2, 3).encode();
    assertThatThrownBy(() -> AvbFooter.parse(Arrays.copyOf(b, 63), 0))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("AVB footer: 63 bytes (expected: 64)");
    b[0] = 'X';
    assertThatThrownBy(() -> AvbFooter.parse(b, 0)).hasMessage("AVB footer magic: not 'AVBf'");
  }

  @Test
  void refusesSizesBeyondASignedLong() {
    byte[] b = AvbFooter.of(1, 2, 3).encode();
    ByteBuffer.wrap(b).putLong(20, -1);
    assertThatThrownBy(() -> AvbFooter.parse(b, 0))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("AVB footer vbmeta_offset: 18446744073709551615 (expected: below 2^63)");
  }

  @Test
  void readsTheLast64BytesOfAnImage() throws Exception {
    byte[] image = new byte[8192];
    AvbFooter footer = AvbFooter.of(4096, 0, 256);
    System.arraycopy(footer.encode(), 0, image, 8192 - 64, 64);
    assertThat(AvbFooter.read(new MemoryDevice("a.img", image))).contains(footer);
    assertThat(AvbFooter.read(new MemoryDevice("b.img", new byte[8192]))).isEmpty();
    assertThat(AvbFooter.read(new MemoryDevice("c.img", new byte[10]))).isEmpty();
    // magic present but pointing outside the image: refused, naming the image
    byte[] bad = image.clone();
    System.arraycopy(AvbFooter.of(4096, 8000, 193).encode(), 0, bad, 8192 - 64, 64);
    assertThatThrownBy(() -> AvbFooter.read(new MemoryDevice("d.img", bad)))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            "d.img: AVB footer vbmeta [8000, +193) (expected: inside the image's 8192 bytes)");
  }
}
