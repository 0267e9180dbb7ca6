package org.jverity.ddi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.ddi.Dissection.GivenHashes;
import org.jverity.io.FileDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;
import org.jverity.text.Json;
import org.jverity.tree.ProgressListener;

/**
 * DDIs built by systemd-repart 252 (as root, on this machine), read by jverity: the partitions as
 * sfdisk lists them, the root hash repart reports, the signature checked against the certificate as
 * systemd's userspace path checks it, the whole tree verified; and what is wrong with altered
 * copies, found.
 */
class RepartDdiTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"root", "usr"})
  void dissectsAndVerifiesASignedRepartImage(String data) throws Exception {
    Path fs = DdiBuilderTest.ext4(dir, "fs.img");
    Openssl.rsa(dir, "signer", 2048);
    Repart repart =
        Repart.build(dir, fs, data, dir.resolve("signer.key"), dir.resolve("signer.crt"));
    Designator d = Designator.dataNamed(data);
    Path certs = Files.createDirectories(dir.resolve("verity.d"));
    Files.copy(dir.resolve("signer.crt"), certs.resolve("signer.crt"));
    try (FileDevice image = FileDevice.openRead(repart.image())) {
      Dissection dissection = Dissection.of(image, "x86-64", GivenHashes.NONE);
      assertSameAsSfdisk(dissection, repart.image());
      Choice c = dissection.choice(d).orElseThrow();
      assertThat(c.rootHash()).isEqualTo(repart.rootHash());
      assertThat(c.source()).isEqualTo(RootHashSource.SIGNATURE_PARTITION);
      assertThat(c.data().entry().number()).isEqualTo(1);
      assertThat(c.verity().entry().number()).isEqualTo(2);
      assertThat(c.signaturePartition().entry().number()).isEqualTo(3);
      assertThat(c.signed()).isTrue();
      assertThat(dissection.warnings()).isEmpty();

      VerifyReport report =
          DdiVerifier.verify(
              image,
              dissection.gpt(),
              c,
              TrustedCertificates.in(List.of(certs)),
              ProgressListener.NONE);
      assertThat(report.ok()).isTrue();
      assertThat(report.certificate()).isEqualTo(certs.resolve("signer.crt"));
      assertThat(report.params().dataBlockSize()).isEqualTo(512); // repart 252's choice

      Openssl.rsa(dir, "other", 2048);
      Path otherDir = Files.createDirectories(dir.resolve("other.d"));
      Files.copy(dir.resolve("other.crt"), otherDir.resolve("other.crt"));
      Files.copy(dir.resolve("signer.crt"), otherDir.resolve("signer.pem")); // ignored, as systemd
      TrustedCertificates other = TrustedCertificates.in(List.of(otherDir));
      assertThat(other.ignored()).singleElement().asString().contains("signer.pem: ignored");
      assertThatThrownBy(
              () -> DdiVerifier.verify(image, dissection.gpt(), c, other, ProgressListener.NONE))
          .isInstanceOf(InvalidSignatureException.class);
    }
  }

  @Test
  void anUnsignedRepartImageVerifiesWithTheRootHashGiven() throws Exception {
    Path fs = DdiBuilderTest.ext4(dir, "fs.img");
    Repart repart = Repart.build(dir, fs, "root", null, null);
    try (FileDevice image = FileDevice.openRead(repart.image())) {
      Dissection none = Dissection.of(image, "x86-64", GivenHashes.NONE);
      Choice unverified = none.choice(Designator.ROOT).orElseThrow();
      assertThat(unverified.verified()).isFalse();
      assertThat(unverified.notes()).anyMatch(n -> n.contains("unverified"));

      Dissection given =
          Dissection.of(
              image,
              "x86-64",
              new GivenHashes(repart.rootHash(), RootHashSource.OPTION, null, null));
      Choice c = given.choice(Designator.ROOT).orElseThrow();
      assertThat(c.verified()).isTrue();
      assertThat(c.signed()).isFalse();
      VerifyReport report =
          DdiVerifier.verify(
              image, given.gpt(), c, TrustedCertificates.in(List.of()), ProgressListener.NONE);
      assertThat(report.ok()).isTrue();
    }
  }

  @Test
  void aFlippedDataByteIsFoundInItsBlock() throws Exception {
    Path fs = DdiBuilderTest.ext4(dir, "fs.img");
    Repart repart = Repart.build(dir, fs, "root", null, null);
    long dataStart = ((Number) repart.partitions().getFirst().get("offset")).longValue();
    try (var ch =
        java.nio.channels.FileChannel.open(
            repart.image(), java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) 0x5a}), dataStart + 512 * 100 + 7);
    }
    try (FileDevice image = FileDevice.openRead(repart.image())) {
      Dissection given =
          Dissection.of(
              image,
              "x86-64",
              new GivenHashes(repart.rootHash(), RootHashSource.OPTION, null, null));
      VerifyReport report =
          DdiVerifier.verify(
              image,
              given.gpt(),
              given.choice(Designator.ROOT).orElseThrow(),
              TrustedCertificates.in(List.of()),
              ProgressListener.NONE);
      assertThat(report.ok()).isFalse();
      assertThat(report.check().corruptions())
          .singleElement()
          .satisfies(x -> assertThat(x.describe()).isEqualTo("data block 100"));
    }
  }

  /** The table as sfdisk lists it: start, size, type, UUID and name of each partition. */
  static void assertSameAsSfdisk(Dissection d, Path image) {
    Map<?, ?> table =
        (Map<?, ?>)
            ((Map<?, ?>) Json.parse(Tool.of("sfdisk").run("--json", image.toString()).ok().out()))
                .get("partitiontable");
    List<?> parts = (List<?>) table.get("partitions");
    assertThat(parts).hasSameSizeAs(d.partitions());
    for (int i = 0; i < parts.size(); i++) {
      Map<?, ?> p = (Map<?, ?>) parts.get(i);
      DdiPartition ours = d.partitions().get(i);
      assertThat(p.get("start")).isEqualTo(ours.entry().firstLba());
      assertThat(p.get("size")).isEqualTo(ours.entry().sectors());
      assertThat(((String) p.get("type")).toLowerCase()).isEqualTo(ours.entry().type().toString());
      assertThat(((String) p.get("uuid")).toLowerCase()).isEqualTo(ours.entry().guid().toString());
      assertThat(p.get("name")).isEqualTo(ours.entry().name());
    }
  }
}
