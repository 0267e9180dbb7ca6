package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.VbmetaBuilder;
import org.jverity.avb.VbmetaHeader;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.avb.verify.AvbFixtures.Built;
import org.jverity.avb.verify.AvbFixtures.Hashtree;
import org.jverity.format.HashFormat;
import org.jverity.format.Hex;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.image.FecSource;
import org.jverity.image.TrustedRoot;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;

class AvbPartitionTest {
  private static final int SIZE = 64 * 1024;
  private static final String SHA1_2048 = "cdbb77177f731920bbe0a0f94f84d9038ae0617d";
  private static final String SHA1_4096 = "2597c218aae470a130f61162feaae70afd97f011";

  @TempDir Path dir;

  private Built system(AvbSigner signer, UnaryOperator<VbmetaBuilder> vbmeta) throws Exception {
    return AvbFixtures.hashtreeImage(
        dir.resolve("system.img"),
        AvbFixtures.pattern(SIZE, 0),
        Hashtree.sha256("system", 2),
        signer,
        vbmeta);
  }

  private static AvbTrust key(String pem) throws IOException {
    return AvbTrust.key(AvbPublicKey.readBlob(AvbFixtures.keyFile(pem)));
  }

  private static AvbPartition open(Path image, AvbTrust trust) throws IOException {
    try (BlockDevice d = FileDevice.openRead(image)) {
      return AvbPartition.open(d, image.toString(), trust, AvbFixtures.AVB_KEY);
    }
  }

  @Test
  void aSignedHashtreeImageResolvesToItsVerityParameters() throws Exception {
    Built b = system(AvbFixtures.rsa2048(), v -> v);
    AvbPartition p = open(b.path(), key("testkey_rsa2048.pem"));
    AvbTreeGeometry g = AvbTreeGeometry.of(SIZE, 4096, HashAlgorithm.SHA256, 2);
    assertThat(p.params())
        .isEqualTo(
            VerityParams.builder()
                .hashAlgorithm(HashAlgorithm.SHA256)
                .hashFormat(HashFormat.NORMAL)
                .blockSize(4096)
                .dataBlocks(SIZE / 4096)
                .hashOffset(SIZE)
                .salt(AvbFixtures.salt32())
                .superblock(false)
                .build());
    assertThat(p.rootDigest()).isEqualTo(b.hashtree().rootDigest());
    assertThat(p.fecRoots()).isEqualTo(2);
    assertThat(p.fecOffset()).isEqualTo(g.fecOffset()).isEqualTo(SIZE + 4096);
    assertThat(p.imageSize()).isEqualTo(SIZE);
    assertThat(p.signed()).isTrue();
    assertThat(p.hashtree()).isEqualTo(b.hashtree());
    assertThat(p.footer().vbmetaOffset()).isEqualTo(b.vbmetaOffset());
    // What the opener takes: the descriptor's parameters and root, and the parity on the image.
    TrustedRoot root = p.trustedRoot();
    assertThat(root.params()).isEqualTo(p.params());
    assertThat(root.rootHash()).isEqualTo(b.hashtree().rootDigest());
    assertThat(root.identity()).isEqualTo(ImageIdentity.of(p.params(), p.rootDigest()));
    assertThat(p.fec("system.img")).isEqualTo(new FecSource("system.img", SIZE + 4096, 2));
  }

  @Test
  void aKeyOtherThanTheOneGivenIsRefusedNamingBothKeys() throws Exception {
    Built b = system(AvbFixtures.rsa2048(), v -> v);
    assertThatThrownBy(() -> open(b.path(), key("testkey_rsa4096.pem")))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessage(
            "vbmeta of "
                + b.path()
                + " is signed by key sha1 "
                + SHA1_2048
                + ", not the --avb-key given (sha1 "
                + SHA1_4096
                + ")");
  }

  @Test
  void anUnsignedImageIsRefusedUnlessAcceptedAndASignedOneNeedsItsKey() throws Exception {
    Built unsigned = system(AvbSigner.NONE, v -> v);
    assertThatThrownBy(() -> open(unsigned.path(), key("testkey_rsa2048.pem")))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("is not signed (algorithm NONE)")
        .hasMessageContaining("--avb-key none");
    // The front end's names, not the library's: a config file's key reads as the key.
    try (BlockDevice d = FileDevice.openRead(unsigned.path())) {
      assertThatThrownBy(
              () ->
                  AvbPartition.open(
                      d, "x.img", key("testkey_rsa2048.pem"), new KeyOption("avb-key =", "none")))
          .hasMessage(
              "vbmeta of x.img is not signed (algorithm NONE): a locked device refuses it (avb-key ="
                  + " none accepts it)");
    }
    AvbPartition p = open(unsigned.path(), AvbTrust.unsigned());
    assertThat(p.signed()).isFalse();
    assertThat(p.rootDigest()).isEqualTo(unsigned.hashtree().rootDigest());

    Built signed = system(AvbFixtures.rsa2048(), v -> v);
    assertThatThrownBy(() -> open(signed.path(), AvbTrust.unsigned()))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("is signed by key sha1 " + SHA1_2048);
  }

  @Test
  void disabledFlagsAreRefusedWithTheReason() throws Exception {
    Built ht = system(AvbFixtures.rsa2048(), v -> v.flags(VbmetaHeader.FLAG_HASHTREE_DISABLED));
    assertThatThrownBy(() -> open(ht.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining("HASHTREE_DISABLED")
        .hasMessageContaining("without dm-verity");
    Built vd = system(AvbFixtures.rsa2048(), v -> v.flags(VbmetaHeader.FLAG_VERIFICATION_DISABLED));
    assertThatThrownBy(() -> open(vd.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining("VERIFICATION_DISABLED");
  }

  @Test
  void anImageWithoutFooterOrWithACutFooterIsRefused() throws Exception {
    Path plain = dir.resolve("plain.img");
    Files.write(plain, AvbFixtures.pattern(SIZE, 0));
    assertThatThrownBy(() -> open(plain, AvbTrust.unsigned()))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage(
            plain
                + ": no AVB footer (its last 64 bytes do not start with AVBf): a partition with a"
                + " hashtree ends with one; a vbmeta image holds no data to verify");
    Built b = system(AvbFixtures.rsa2048(), v -> v);
    try (FileChannel ch = FileChannel.open(b.path(), StandardOpenOption.WRITE)) {
      ch.truncate(Files.size(b.path()) - 10);
    }
    assertThatThrownBy(() -> open(b.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining("no AVB footer");
  }

  @Test
  void noOrSeveralHashtreeDescriptorsAreRefused() throws Exception {
    Built hash =
        AvbFixtures.hashImage(
            dir.resolve("boot.img"),
            AvbFixtures.pattern(5000, 0),
            "boot",
            HashAlgorithm.SHA256,
            AvbFixtures.rsa2048(),
            v -> v);
    assertThatThrownBy(() -> open(hash.path(), key("testkey_rsa2048.pem")))
        .isInstanceOf(AvbFormatException.class)
        .hasMessageContaining("has no hashtree descriptor");
    Built first = system(AvbFixtures.rsa2048(), v -> v);
    Built two =
        AvbFixtures.hashtreeImage(
            dir.resolve("two.img"),
            AvbFixtures.pattern(SIZE, 0),
            Hashtree.sha256("system", 2),
            AvbFixtures.rsa2048(),
            v -> v.descriptors(withExtra(first.hashtree(), first.hashtree())));
    assertThatThrownBy(() -> open(two.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining("has 2 hashtree descriptors (system, vendor)");
  }

  @Test
  void aDescriptorThatDoesNotFitTheImageIsRefused() throws Exception {
    Built good = system(AvbFixtures.rsa2048(), v -> v);
    HashtreeDescriptor d = good.hashtree();
    HashtreeDescriptor badFec = copy(d, d.fecOffset() + 4096, d.fecSize(), d.hashAlgorithm());
    Built b = rebuilt("fec.img", badFec);
    assertThatThrownBy(() -> open(b.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining(
            "fec_offset " + (d.fecOffset() + 4096) + " (expected: " + d.fecOffset());
    Built blake = rebuilt("blake.img", copy(d, d.fecOffset(), d.fecSize(), "blake2b-256"));
    assertThatThrownBy(() -> open(blake.path(), key("testkey_rsa2048.pem")))
        .hasMessageContaining("hash algorithm blake2b-256 (expected: sha1, sha256 or sha512");
  }

  @Test
  void veritysetupVerifyAcceptsTheOpenCommandsOptionsAndFindsARepairableError() throws Exception {
    Built b = system(AvbFixtures.rsa2048(), v -> v);
    AvbPartition p = open(b.path(), key("testkey_rsa2048.pem"));
    String img = b.path().toString();
    List<String> args = new ArrayList<>(List.of("verify"));
    args.addAll(DmVerityTable.of("t", p.hashtree()).veritysetupOptions(img));
    args.addAll(List.of(img, img, Hex.format(p.rootDigest())));
    ToolResult ok = Veritysetup.run(args);
    assertThat(ok.exit()).as(ok.toString()).isZero();
    assertThat(DmVerityTable.of("t", p.hashtree()).veritysetupOpen(img, "vroot"))
        .isEqualTo(
            "veritysetup open "
                + String.join(" ", DmVerityTable.of("t", p.hashtree()).veritysetupOptions(img))
                + " "
                + img
                + " vroot "
                + img
                + " "
                + Hex.format(p.rootDigest()));

    AvbFixtures.flip(b.path(), 5000);
    ToolResult repaired = Veritysetup.run(args);
    assertThat(repaired.out() + repaired.stderr()).as(repaired.toString()).contains("repairable");
  }

  /** The same image as {@link #system} but for its descriptor, replaced by {@code d}. */
  private Built rebuilt(String file, HashtreeDescriptor d) throws Exception {
    return AvbFixtures.hashtreeImage(
        dir.resolve(file),
        AvbFixtures.pattern(SIZE, 0),
        Hashtree.sha256("system", 2),
        AvbFixtures.rsa2048(),
        v -> v.descriptors(List.of(d)));
  }

  private static List<HashtreeDescriptor> withExtra(
      HashtreeDescriptor own, HashtreeDescriptor other) {
    HashtreeDescriptor vendor =
        new HashtreeDescriptor(
            other.dmVerityVersion(),
            other.imageSize(),
            other.treeOffset(),
            other.treeSize(),
            other.dataBlockSize(),
            other.hashBlockSize(),
            other.fecNumRoots(),
            other.fecOffset(),
            other.fecSize(),
            other.hashAlgorithm(),
            "vendor",
            other.salt(),
            other.rootDigest(),
            other.flags());
    return List.of(own, vendor);
  }

  private static HashtreeDescriptor copy(
      HashtreeDescriptor d, long fecOffset, long fecSize, String algorithm) {
    return new HashtreeDescriptor(
        d.dmVerityVersion(),
        d.imageSize(),
        d.treeOffset(),
        d.treeSize(),
        d.dataBlockSize(),
        d.hashBlockSize(),
        d.fecNumRoots(),
        fecOffset,
        fecSize,
        algorithm,
        d.partitionName(),
        d.salt(),
        d.rootDigest(),
        d.flags());
  }
}
