package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.AvbVectors;

/**
 * {@link InfoImage} against avbtool 1.3.0's info_image text (AVB.md 6 and avbtool.py's print code).
 */
class InfoImageTest {
  @TempDir Path dir;

  static final byte[] SALT =
      HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

  /** The hashtree descriptor of AVB.md 6's sample: 1 MiB, sha1, no FEC, partition "system". */
  static HashtreeDescriptor sampleHashtree() {
    return new HashtreeDescriptor(
        1,
        1048576,
        1048576,
        12288,
        4096,
        4096,
        0,
        0,
        0,
        "sha1",
        "system",
        SALT,
        HexFormat.of().parseHex("2b9c1718a693d97fc700e65dc9dbc654a4e62671"),
        0);
  }

  @Test
  void printsAvbMdSampleExactly() throws Exception {
    byte[] blob = new VbmetaBuilder(AvbSigner.NONE).descriptors(List.of(sampleHashtree())).build();
    assertThat(blob).hasSize(512);
    AvbFooter footer = AvbFooter.of(1048576, 1060864, blob.length);
    String expected = AvbVectors.INFO_IMAGE_SAMPLE;
    assertThat(InfoImage.format(footer, 2097152, VbmetaImage.parse(blob))).isEqualTo(expected);
  }

  @Test
  void printsEveryOtherDescriptorKindAsAvbtool() throws Exception {
    byte[] key = AvbPublicKey.readBlob(AvbTestKeys.copy("testkey_rsa2048.pem", dir));
    List<Descriptor> descriptors =
        List.of(
            new HashDescriptor(
                65536, "sha256", "boot", new byte[] {0x00, 0x11}, new byte[] {(byte) 0xab}, 0),
            new ChainPartitionDescriptor(1, "system", key, 0),
            PropertyDescriptor.of("com.example.foo", "bar"),
            new PropertyDescriptor("bin", new byte[] {0, '\'', '\\', '\n', (byte) 0xff}),
            new PropertyDescriptor("quotes", "it's \"q\"".getBytes(StandardCharsets.US_ASCII)),
            new PropertyDescriptor("only-single", "it's".getBytes(StandardCharsets.US_ASCII)),
            new PropertyDescriptor("big", new byte[256]),
            new KernelCmdlineDescriptor(1, "dm=\"1 vroot\""),
            new UnknownDescriptor(42, new byte[] {'a', 0, 0, 0, 0, 0, 0, 0}));
    VbmetaImage image =
        VbmetaImage.parse(
            new VbmetaBuilder(
                    AvbSigner.of(
                        AvbAlgorithm.SHA256_RSA2048,
                        AvbPublicKey.readPrivateKey(dir.resolve("testkey_rsa2048.pem"))))
                .rollbackIndex(-1)
                .descriptors(descriptors)
                .build());
    String text = InfoImage.format(null, image.size(), image);

    assertThat(text).startsWith("Minimum libavb version:   1.0\n");
    assertThat(text)
        .contains(
            "Auxiliary Block:          "
                + image.header().auxiliaryDataBlockSize()
                + " bytes\n"
                + "Public key (sha1):        cdbb77177f731920bbe0a0f94f84d9038ae0617d\n"
                + "Algorithm:                SHA256_RSA2048\n"
                + "Rollback Index:           18446744073709551615\n");
    assertThat(text)
        .endsWith(
            """
            Descriptors:
                Hash descriptor:
                  Image Size:            65536 bytes
                  Hash Algorithm:        sha256
                  Partition Name:        boot
                  Salt:                  0011
                  Digest:                ab
                  Flags:                 0
                Chain Partition descriptor:
                  Partition Name:          system
                  Rollback Index Location: 1
                  Public key (sha1):       cdbb77177f731920bbe0a0f94f84d9038ae0617d
                  Flags:                   0
                Prop: com.example.foo -> 'bar'
                Prop: bin -> b"\\x00'\\\\\\n\\xff"
                Prop: quotes -> 'it\\'s "q"'
                Prop: only-single -> b"it's"
                Prop: big -> (256 bytes)
                Kernel Cmdline descriptor:
                  Flags:                 1
                  Kernel Cmdline:        'dm="1 vroot"'
                Unknown descriptor:
                  Tag:  42
                  Data: "b'a\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00'" (8 bytes)
            """);
  }

  @Test
  void noDescriptorsPrintNone() throws Exception {
    VbmetaImage image = VbmetaImage.parse(new VbmetaBuilder(AvbSigner.NONE).build());
    assertThat(InfoImage.format(null, 256, image)).endsWith("Descriptors:\n    (none)\n");
    assertThat(InfoImage.format(null, 256, image))
        .doesNotContain("Footer")
        .doesNotContain("Public key");
  }
}
