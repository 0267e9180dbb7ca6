package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.VbmetaBuilder;
import org.jverity.avb.VbmetaHeader;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.verify.AvbFixtures.Built;
import org.jverity.avb.verify.AvbFixtures.Hashtree;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.FileDevice;

class AvbVerifierTest {
  private static final int SIZE = 64 * 1024;
  private static final String SHA1_2048 = "cdbb77177f731920bbe0a0f94f84d9038ae0617d";
  private static final String SHA1_4096 = "2597c218aae470a130f61162feaae70afd97f011";

  @TempDir Path dir;

  private Built system(String file, AvbSigner signer, UnaryOperator<VbmetaBuilder> vbmeta)
      throws Exception {
    return AvbFixtures.hashtreeImage(
        dir.resolve(file),
        AvbFixtures.pattern(SIZE, 0),
        Hashtree.sha256("system", 2),
        signer,
        vbmeta);
  }

  private static List<String> verify(Path image, UnaryOperator<AvbVerifyOptions.Builder> o)
      throws IOException {
    return new AvbVerifier(o.apply(AvbVerifyOptions.builder().threads(2)).build()).verify(image);
  }

  private static AvbVerifyOptions.Builder withKey(AvbVerifyOptions.Builder b, String pem)
      throws IOException {
    Path key = AvbFixtures.keyFile(pem);
    return b.trustedKey(AvbPublicKey.readBlob(key), key.toString());
  }

  private static byte[] blob(String pem) throws IOException {
    return AvbPublicKey.readBlob(AvbFixtures.keyFile(pem));
  }

  @Test
  void aSignedHashtreePartitionVerifiesWithAvbtoolsLines() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    String p = b.path().toString();
    Path key = AvbFixtures.keyFile("testkey_rsa2048.pem");
    assertThat(verify(b.path(), o -> unchecked(() -> withKey(o, "testkey_rsa2048.pem"))))
        .containsExactly(
            "Verifying image " + p + " using key at " + key,
            "vbmeta: Successfully verified footer and SHA256_RSA2048 vbmeta struct in " + p,
            "system: Successfully verified sha256 hashtree of " + p + " for image of 65536 bytes");
    assertThat(verify(b.path(), o -> o))
        .startsWith("Verifying image " + p + " using embedded public key")
        .hasSize(3);
  }

  @Test
  void theImagesOwnDescriptorIsCheckedAgainstTheImageGivenNotASiblingFile() throws Exception {
    Built good = system("system.img", AvbFixtures.rsa2048(), v -> v);
    Built other = system("foo.img", AvbFixtures.rsa2048(), v -> v);
    AvbFixtures.flip(other.path(), 100); // foo.img's data is corrupt; system.img beside it is fine
    assertThatThrownBy(() -> verify(other.path(), o -> o))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("system: sha256 hashtree of " + other.path() + " does not verify");
    assertThat(verify(good.path(), o -> o))
        .last()
        .asString()
        .contains("of " + good.path() + " for");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "data, 100, hashtree of, AvbVerificationException",
    "tree, 65546, hashtree of, AvbVerificationException",
    "vbmeta header, -1, hash mismatch, AvbVerificationException",
    "vbmeta aux, -2, hash mismatch, AvbVerificationException",
    "vbmeta signature, -3, signature mismatch, AvbVerificationException",
    "footer, -4, vbmeta magic, AvbFormatException", // the vbmeta is looked for elsewhere
  })
  void aFlippedByteIsRefusedInOneLine(String what, long offset, String reason, String type)
      throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    long at =
        switch ((int) offset) {
          case -1 -> b.vbmetaOffset() + 112 + 7; // rollback_index
          case -2 -> b.vbmetaOffset() + 256 + 320 + 40; // a descriptor's field in the aux block
          case -3 -> b.vbmetaOffset() + 256 + 32 + 5; // the signature, after the 32-byte hash
          case -4 -> Files.size(b.path()) - 64 + 27; // vbmeta_offset's low byte
          default -> offset;
        };
    AvbFixtures.flip(b.path(), at);
    assertThatThrownBy(() -> verify(b.path(), o -> o))
        .as(what)
        .isInstanceOf(
            type.equals("AvbFormatException")
                ? AvbFormatException.class
                : AvbVerificationException.class)
        .hasMessageContaining(reason)
        .hasMessageNotContaining("\n");
  }

  @Test
  void aWrongKeyIsRefusedNamingBothKeys() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    assertThatThrownBy(
            () -> verify(b.path(), o -> unchecked(() -> withKey(o, "testkey_rsa4096.pem"))))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessage(
            "vbmeta of "
                + b.path()
                + " is signed by key sha1 "
                + SHA1_2048
                + ", not the --key given (sha1 "
                + SHA1_4096
                + ")");
  }

  @Test
  void aTruncatedFooterIsRefused() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    try (FileChannel ch = FileChannel.open(b.path(), StandardOpenOption.WRITE)) {
      ch.truncate(Files.size(b.path()) - 10);
    }
    assertThatThrownBy(() -> verify(b.path(), o -> o))
        .isInstanceOf(AvbFormatException.class)
        .hasMessageStartingWith(b.path() + ": no AVB footer")
        .hasMessageContaining("and no vbmeta image at its start either (vbmeta magic");
  }

  @Test
  void anUnsignedImageIsRefusedUnlessAccepted() throws Exception {
    Built b = system("system.img", AvbSigner.NONE, v -> v);
    assertThatThrownBy(() -> verify(b.path(), o -> o))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("is not signed (algorithm NONE)");
    assertThat(verify(b.path(), o -> o.acceptUnsigned(true)))
        .contains("vbmeta: Successfully verified footer and NONE vbmeta struct in " + b.path());
    assertThatThrownBy(
            () ->
                verify(
                    b.path(),
                    o -> unchecked(() -> withKey(o, "testkey_rsa2048.pem")).acceptUnsigned(true)))
        .hasMessage(
            "vbmeta of "
                + b.path()
                + " is not signed (algorithm NONE), so not by the --key given (sha1 "
                + SHA1_2048
                + ")");
  }

  @Test
  void disabledFlagsInTheMainVbmetaAreRefused() throws Exception {
    Built b =
        system(
            "system.img", AvbFixtures.rsa2048(), v -> v.flags(VbmetaHeader.FLAG_HASHTREE_DISABLED));
    assertThatThrownBy(() -> verify(b.path(), o -> o)).hasMessageContaining("HASHTREE_DISABLED");
  }

  /** vbmeta.img signed by 2048, chaining system (location 1) to {@code chainKey}. */
  private Path vbmetaChaining(byte[] chainKey, Descriptor... more) throws Exception {
    List<Descriptor> d = new ArrayList<>();
    d.add(new ChainPartitionDescriptor(1, "system", chainKey, 0));
    d.addAll(List.of(more));
    return AvbFixtures.vbmetaImage(dir.resolve("vbmeta.img"), AvbFixtures.rsa2048(), d, v -> v);
  }

  @Test
  void aCorrectChainVerifiesWithAvbtoolsLinesEvenWithTheTopLevelKey() throws Exception {
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem"));
    Built system = system("system.img", AvbFixtures.rsa4096(), v -> v);
    String s = system.path().toString();
    assertThat(verify(vbmeta, o -> o.followChains(true)))
        .containsExactly(
            "Verifying image " + vbmeta + " using embedded public key",
            "vbmeta: Successfully verified SHA256_RSA2048 vbmeta struct in " + vbmeta,
            "system: Chained but ROLLBACK_SLOT (which is 1) and KEY (which has sha1 "
                + SHA1_4096
                + ") not specified",
            "--",
            "Verifying image " + s + " using embedded public key",
            "vbmeta: Successfully verified footer and SHA256_RSA4096 vbmeta struct in " + s,
            "system: Successfully verified sha256 hashtree of " + s + " for image of 65536 bytes");
    // avbtool applies --key to the chained image too and fails here; libavb does not.
    assertThat(
            verify(
                vbmeta, o -> unchecked(() -> withKey(o, "testkey_rsa2048.pem")).followChains(true)))
        .hasSize(7);
    // An expected chain partition is compared, not followed, unless asked.
    Path blobFile = Files.write(dir.resolve("system.avbpubkey"), blob("testkey_rsa4096.pem"));
    ExpectedChain expected = ExpectedChain.parse("system:1:" + blobFile);
    assertThat(verify(vbmeta, o -> o.expectChain(expected)))
        .containsExactly(
            "Verifying image " + vbmeta + " using embedded public key",
            "vbmeta: Successfully verified SHA256_RSA2048 vbmeta struct in " + vbmeta,
            "system: Successfully verified chain partition descriptor matches expected data");
    assertThatThrownBy(() -> verify(vbmeta, o -> o))
        .hasMessageContaining("system: no expected chain partition");
    ExpectedChain otherKey = new ExpectedChain("system", 1, blob("testkey_rsa2048.pem"));
    assertThatThrownBy(() -> verify(vbmeta, o -> o.expectChain(otherKey)))
        .hasMessageContaining(
            "names key sha1 " + SHA1_4096 + ", not the expected sha1 " + SHA1_2048);
  }

  @Test
  void aChainToAnMlDsaSignedPartitionVerifies() throws Exception {
    KeyPair keys = KeyPairGenerator.getInstance("ML-DSA-65").generateKeyPair();
    AvbSigner mldsa = AvbSigner.of(AvbAlgorithm.MLDSA65, keys);
    Path vbmeta = vbmetaChaining(mldsa.publicKeyBlob());
    Built system = system("system.img", mldsa, v -> v);
    assertThat(verify(vbmeta, o -> o.followChains(true)))
        .contains(
            "vbmeta: Successfully verified footer and MLDSA65 vbmeta struct in " + system.path())
        .last()
        .asString()
        .startsWith("system: Successfully verified sha256 hashtree");
    Built other =
        system(
            "system.img",
            AvbSigner.of(
                AvbAlgorithm.MLDSA65, KeyPairGenerator.getInstance("ML-DSA-65").generateKeyPair()),
            v -> v);
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .hasMessageContaining("vbmeta of " + other.path() + " is signed by key sha1 ");
  }

  @Test
  void aChainedImageReSignedWithAnotherKeyIsRefused() throws Exception {
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem"));
    Built system = system("system.img", AvbFixtures.rsa2048(), v -> v); // not the chain's key
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessage(
            "vbmeta of "
                + system.path()
                + " is signed by key sha1 "
                + SHA1_2048
                + ", not the key the chain descriptor for system in "
                + vbmeta
                + " names (sha1 "
                + SHA1_4096
                + "): a device refuses it");
  }

  @Test
  void aChainedImageWithFlagsIsRefused() throws Exception {
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem"));
    system("system.img", AvbFixtures.rsa4096(), v -> v.flags(VbmetaHeader.FLAG_HASHTREE_DISABLED));
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .hasMessageContaining("flags 1 (expected: 0 in a chained vbmeta")
        .hasMessageContaining("chained vbmeta image has non-zero flags");
  }

  /**
   * libavb's load_and_verify_vbmeta reads rollback_index_location from the header of the main
   * vbmeta only; a chained image's location is its chain descriptor's, whatever its header says
   * (device builds pass --rollback_index_location to the chained image too).
   */
  @ParameterizedTest
  @CsvSource({"1", "2", "31", "4294967295"})
  void aChainedImagesOwnRollbackLocationIsIgnoredAsLibavbIgnoresIt(long own) throws Exception {
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem")); // system at location 1
    Built system =
        system(
            "system.img",
            AvbFixtures.rsa4096(),
            v -> v.rollbackIndexLocation((int) own).rollbackIndex(3));
    assertThat(verify(vbmeta, o -> o.followChains(true)))
        .last()
        .isEqualTo(
            "system: Successfully verified sha256 hashtree of "
                + system.path()
                + " for image of 65536 bytes");
    if (own != 1) { // the index stored at the header's location is not the one compared
      assertThat(verify(vbmeta, o -> o.followChains(true).rollbackIndex((int) own, 9))).hasSize(7);
    }
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true).rollbackIndex(1, 4)))
        .hasMessageContaining("rollback index 3 is below the 4 stored for location 1");
  }

  @Test
  void aChainInAChainedImageIsRefused() throws Exception {
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem"));
    Built own = system("plain.img", AvbFixtures.rsa4096(), v -> v);
    byte[] vendorKey = blob("testkey_rsa2048.pem");
    system(
        "system.img",
        AvbFixtures.rsa4096(),
        v ->
            v.descriptors(
                List.of(
                    own.descriptor(), new ChainPartitionDescriptor(2, "vendor", vendorKey, 0))));
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("chains vendor in turn")
        .hasMessageContaining("Encountered chain descriptor not in main image");
  }

  @Test
  void aChainBackToTheMainImageIsACycle() throws Exception {
    Path vbmeta =
        AvbFixtures.vbmetaImage(
            dir.resolve("vbmeta.img"),
            AvbFixtures.rsa2048(),
            List.of(new ChainPartitionDescriptor(1, "vbmeta", blob("testkey_rsa2048.pem"), 0)),
            v -> v);
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("the chain loops");
  }

  @Test
  void chainLocationsMustBeNonZeroAndDistinct() throws Exception {
    Path vbmeta =
        vbmetaChaining(
            blob("testkey_rsa4096.pem"),
            new ChainPartitionDescriptor(1, "vendor", blob("testkey_rsa4096.pem"), 0));
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true)))
        .hasMessage(
            vbmeta
                + ": chain partition descriptor for vendor: rollback_index_location 1 is also"
                + " system's (expected: one location per vbmeta, or one stored index guards both)");
    Path zero =
        AvbFixtures.vbmetaImage(
            dir.resolve("zero.img"),
            AvbFixtures.rsa2048(),
            List.of(new ChainPartitionDescriptor(0, "system", blob("testkey_rsa4096.pem"), 0)),
            v -> v);
    assertThatThrownBy(() -> verify(zero, o -> o.followChains(true)))
        .hasMessageContaining("invalid rollback_index_location");
  }

  @Test
  void aRollbackIndexBelowTheStoredOneIsRefused() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v.rollbackIndex(3));
    assertThat(verify(b.path(), o -> o.rollbackIndex(0, 3))).hasSize(3);
    assertThatThrownBy(() -> verify(b.path(), o -> o.rollbackIndex(0, 5)))
        .hasMessageContaining("rollback index 3 is below the 5 stored for location 0");
    // A chained image is checked at the chain descriptor's location.
    Path vbmeta = vbmetaChaining(blob("testkey_rsa4096.pem"));
    system("system.img", AvbFixtures.rsa4096(), v -> v.rollbackIndex(1));
    assertThatThrownBy(() -> verify(vbmeta, o -> o.followChains(true).rollbackIndex(1, 2)))
        .hasMessageContaining("rollback index 1 is below the 2 stored for location 1");
  }

  @Test
  void hashDescriptorsVerifyWithSha256AndAreRefusedWithSha1() throws Exception {
    Built boot =
        AvbFixtures.hashImage(
            dir.resolve("boot.img"),
            AvbFixtures.pattern(5000, 3),
            "boot",
            HashAlgorithm.SHA256,
            AvbFixtures.rsa2048(),
            v -> v);
    assertThat(verify(boot.path(), o -> o))
        .last()
        .isEqualTo(
            "boot: Successfully verified sha256 hash of "
                + boot.path()
                + " for image of 5000 bytes");
    AvbFixtures.flip(boot.path(), 4999);
    assertThatThrownBy(() -> verify(boot.path(), o -> o))
        .hasMessageContaining(
            "sha256 digest of " + boot.path() + " does not match digest in descriptor");
    Built sha1 =
        AvbFixtures.hashImage(
            dir.resolve("sha1.img"),
            AvbFixtures.pattern(5000, 3),
            "boot",
            HashAlgorithm.SHA1,
            AvbFixtures.rsa2048(),
            v -> v);
    assertThatThrownBy(() -> verify(sha1.path(), o -> o))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("uses sha1 (expected: sha256 or sha512")
        .hasMessageContaining("Unsupported hash algorithm");
  }

  @Test
  void descriptorsOfOtherPartitionsAreReadFromTheirImages() throws Exception {
    Built system = system("system.img", AvbFixtures.rsa4096(), v -> v);
    Built boot =
        AvbFixtures.hashImage(
            dir.resolve("elsewhere.bin"),
            AvbFixtures.pattern(5000, 3),
            "boot",
            HashAlgorithm.SHA256,
            AvbFixtures.rsa2048(),
            v -> v);
    Path vbmeta =
        AvbFixtures.vbmetaImage(
            dir.resolve("vbmeta.img"),
            AvbFixtures.rsa2048(),
            List.of(boot.descriptor(), system.descriptor()),
            v -> v);
    assertThatThrownBy(() -> verify(vbmeta, o -> o))
        .hasMessageContaining(
            "boot: no image for the partition (looked for " + dir.resolve("boot.img"));
    assertThat(verify(vbmeta, o -> o.image("boot", boot.path())))
        .containsExactly(
            "Verifying image " + vbmeta + " using embedded public key",
            "vbmeta: Successfully verified SHA256_RSA2048 vbmeta struct in " + vbmeta,
            "boot: Successfully verified sha256 hash of "
                + boot.path()
                + " for image of 5000 bytes",
            "system: Successfully verified sha256 hashtree of "
                + system.path()
                + " for image of 65536 bytes");
  }

  @Test
  void moreThan32PartitionsToLoadAreRefused() throws Exception {
    Built boot =
        AvbFixtures.hashImage(
            dir.resolve("boot.img"),
            AvbFixtures.pattern(5000, 3),
            "boot",
            HashAlgorithm.SHA256,
            AvbFixtures.rsa2048(),
            v -> v);
    HashDescriptor h = (HashDescriptor) boot.descriptor();
    List<HashDescriptor> many = new ArrayList<>();
    for (int i = 0; i <= AvbVerifier.MAX_LOADED_PARTITIONS; i++) {
      many.add(new HashDescriptor(h.imageSize(), "sha256", "p" + i, h.salt(), h.digest(), 0));
    }
    Path vbmeta =
        AvbFixtures.vbmetaImage(dir.resolve("vbmeta.img"), AvbFixtures.rsa2048(), many, v -> v);
    UnaryOperator<AvbVerifyOptions.Builder> images =
        o -> {
          for (HashDescriptor d : many) {
            o.image(d.partitionName(), boot.path());
          }
          return o;
        };
    assertThatThrownBy(() -> verify(vbmeta, images))
        .hasMessage(
            "p32: more than 32 partitions to load (a device refuses them: 'Too many loaded"
                + " partitions')");
    many.removeLast();
    AvbFixtures.vbmetaImage(dir.resolve("vbmeta.img"), AvbFixtures.rsa2048(), many, v -> v);
    assertThat(verify(vbmeta, images)).hasSize(2 + 32);
  }

  @Test
  void fecRepairableCorruptionIsReportedAsRepairable() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    AvbFixtures.flip(b.path(), 3 * 4096 + 17);
    assertThatThrownBy(() -> verify(b.path(), o -> o))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageContaining("does not verify")
        .hasMessageContaining("FEC can repair it")
        .hasMessageContaining("all repairable by FEC");
  }

  @Test
  void aCorruptFecIsRefusedThoughTheDataVerifies() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    long fec = b.hashtree().fecOffset();
    AvbFixtures.flip(b.path(), fec + 5);
    assertThatThrownBy(() -> verify(b.path(), o -> o))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("system: " + b.path() + ": FEC parity: 1 of 2 blocks do not match")
        .hasMessageEndingWith(": a device could not repair corruption with it");
  }

  @Test
  void aZeroedHashtreeIsRefusedUnlessAcceptedAndTheDataStillMustMatch() throws Exception {
    Built b = system("system.img", AvbFixtures.rsa2048(), v -> v);
    try (FileDevice d = FileDevice.openWrite(b.path())) {
      var h = b.hashtree();
      AvbHashtree.zero(d, h.treeOffset(), h.treeSize(), h.fecOffset(), h.fecSize());
    }
    assertThatThrownBy(() -> verify(b.path(), o -> o)).hasMessageContaining("is zeroed or absent");
    assertThat(verify(b.path(), o -> o.acceptZeroedHashtree(true)))
        .last()
        .isEqualTo(
            "system: skipping verification since hashtree is zeroed and --accept_zeroed_hashtree"
                + " was given");
    AvbFixtures.flip(b.path(), 10);
    assertThatThrownBy(() -> verify(b.path(), o -> o.acceptZeroedHashtree(true)))
        .hasMessageContaining("does not match descriptor");
  }

  /** An IOException-throwing step in a builder lambda. */
  private interface IoStep<T> {
    T get() throws IOException;
  }

  private static <T> T unchecked(IoStep<T> step) {
    try {
      return step.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
