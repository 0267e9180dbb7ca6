package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The five descriptors and the array framing: avbtool's encodings, libavb's length rules. */
class DescriptorsTest {
  static final List<Descriptor> ALL =
      List.of(
          InfoImageTest.sampleHashtree(),
          new HashDescriptor(65536, "sha256", "boot", new byte[] {1, 2}, new byte[32], 1),
          new KernelCmdlineDescriptor(2, "root=PARTUUID=$(ANDROID_SYSTEM_PARTUUID)"),
          new ChainPartitionDescriptor(1, "system", new byte[520], 1),
          new PropertyDescriptor("key", new byte[] {0, 1, (byte) 0xff}),
          new UnknownDescriptor(77, new byte[16]));

  @Test
  void roundTripsEveryKind() throws Exception {
    byte[] b = Descriptors.encode(ALL);
    assertThat(Descriptors.parse(b, 0, b.length)).isEqualTo(ALL);
    for (Descriptor d : ALL) {
      byte[] e = d.encode();
      assertThat(e.length % 8).isZero();
      assertThat(ByteBuffer.wrap(e).getLong(0)).isEqualTo(d.tag());
      assertThat(ByteBuffer.wrap(e).getLong(8)).isEqualTo(e.length - 16);
    }
  }

  @Test
  void hashtreeDescriptorSizeIsAvbMds() {
    // name "system", 32-byte salt, 20-byte sha1 digest: 222 bytes + 2 of padding
    byte[] e = InfoImageTest.sampleHashtree().encode();
    assertThat(ByteBuffer.wrap(e).getLong(8)).isEqualTo(0xe0);
    assertThat(e).hasSize(16 + 0xe0);
    assertThat(new String(e, 72, 4)).isEqualTo("sha1");
    assertThat(e[76]).isZero();
  }

  @Test
  void fixedPartsAreAvbtools() {
    assertThat(new HashDescriptor(0, "sha256", "", new byte[0], new byte[0], 0).encode())
        .hasSize(16 + 120); // round8(116)
    assertThat(new KernelCmdlineDescriptor(0, "").encode()).hasSize(24);
    assertThat(new ChainPartitionDescriptor(1, "", new byte[0], 0).encode()).hasSize(16 + 80);
    // property: key ‖ NUL ‖ value ‖ NUL: round8(16 + 3 + 1 + 3 + 1) = 24
    byte[] p = PropertyDescriptor.of("foo", "bar").encode();
    assertThat(p).hasSize(16 + 24);
    assertThat(HexFormat.of().formatHex(p, 32, 40)).isEqualTo("666f6f0062617200");
  }

  @Test
  void refusesALengthNotAMultipleOf8() {
    byte[] b = PropertyDescriptor.of("foo", "bar").encode();
    ByteBuffer.wrap(b).putLong(8, 23);
    assertThatThrownBy(() -> Descriptors.parse(b, 0, b.length))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("descriptor #0 num_bytes_following: 23 (expected: a multiple of 8)");
  }

  @Test
  void refusesALengthPastTheArray() {
    byte[] b = PropertyDescriptor.of("foo", "bar").encode();
    ByteBuffer.wrap(b).putLong(8, 32);
    assertThatThrownBy(() -> Descriptors.parse(b, 0, b.length))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            "descriptor #0 num_bytes_following: 32 (expected: at most the 24 bytes left in the"
                + " descriptor array)");
    ByteBuffer.wrap(b).putLong(8, -8);
    assertThatThrownBy(() -> Descriptors.parse(b, 0, b.length))
        .hasMessageStartingWith("descriptor #0 num_bytes_following: 18446744073709551608");
    assertThatThrownBy(() -> Descriptors.parse(b, 0, 10))
        .hasMessage("descriptor #0 at +0: 10 bytes left (expected: a 16-byte header)");
  }

  @Test
  void refusesFieldLengthsPastTheDescriptor() {
    byte[] b = InfoImageTest.sampleHashtree().encode();
    ByteBuffer.wrap(b).putInt(108, 0x7fffffff); // salt_len
    assertThatThrownBy(() -> Descriptors.parse(b, 0, b.length))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            "descriptor #0: hashtree descriptor: fields need 2147483837 bytes (expected: at most"
                + " num_bytes_following 224)");
    byte[] p = PropertyDescriptor.of("foo", "bar").encode();
    ByteBuffer.wrap(p).putLong(16, Long.MAX_VALUE);
    assertThatThrownBy(() -> Descriptors.parse(p, 0, p.length))
        .hasMessageStartingWith("descriptor #0: property descriptor: key 9223372036854775807");
    byte[] shortFixed = new KernelCmdlineDescriptor(0, "").encode();
    byte[] asHash = shortFixed.clone();
    ByteBuffer.wrap(asHash).putLong(0, HashDescriptor.TAG);
    assertThatThrownBy(() -> Descriptors.parse(asHash, 0, asHash.length))
        .hasMessage(
            "descriptor #0: hash descriptor: num_bytes_following 8 (expected: at least 116)");
  }

  @Test
  void refusesNamesThatAreNotUtf8() {
    byte[] b = new ChainPartitionDescriptor(1, "ab", new byte[0], 0).encode();
    b[92] = (byte) 0xc3;
    assertThatThrownBy(() -> Descriptors.parse(b, 0, b.length))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            "descriptor #1: chain partition name: not UTF-8 (expected: valid UTF-8 text)"
                .replace("#1", "#0"));
  }

  @Test
  void keepsUnknownTagsOpaque() throws Exception {
    byte[] b = new byte[16 + 8];
    ByteBuffer.wrap(b).putLong(-1L).putLong(8).put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    List<Descriptor> d = Descriptors.parse(b, 0, b.length);
    assertThat(d).containsExactly(new UnknownDescriptor(-1L, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    assertThat(Descriptors.encode(d)).isEqualTo(b);
  }

  @Test
  void recordsCopyTheirArrays() {
    byte[] salt = {1, 2, 3};
    HashDescriptor d = new HashDescriptor(1, "sha256", "x", salt, new byte[0], 0);
    salt[0] = 9;
    assertThat(d.salt()[0]).isEqualTo((byte) 1);
    d.salt()[1] = 9;
    assertThat(d.salt()[1]).isEqualTo((byte) 2);
  }
}
