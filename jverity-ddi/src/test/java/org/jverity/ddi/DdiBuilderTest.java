package org.jverity.ddi;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.ddi.gpt.GptEntry;
import org.jverity.io.FileDevice;
import org.jverity.sig.Pem;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;
import org.jverity.testkit.Veritysetup;
import org.jverity.text.Json;
import org.jverity.tree.ProgressListener;

/**
 * DDIs built here, checked by the tools that know GPT, verity and PKCS#7 without jverity: {@code
 * sgdisk -v} finds no problem, {@code sfdisk --json} shows the partitions as written, veritysetup
 * verifies the extracted data partition against the extracted verity partition with the root hash
 * the table's UUIDs carry, and {@code openssl smime -verify} accepts the signature partition's
 * PKCS#7 over the root hash's hex.
 */
class DdiBuilderTest {
  static final UUID SEED = UUID.fromString("0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10");

  @TempDir Path dir;

  /**
   * repart.c's {@code derive_uuid(seed, token)}, computed by openssl: HMAC-SHA256 keyed with the
   * seed's 16 bytes over the token, the first half marked a version 4 UUID.
   */
  private static String repartDerivedUuid(String token) throws Exception {
    Path in = Files.createTempFile("token", ".txt");
    try {
      Files.writeString(in, token);
      String out =
          Tool.of("openssl")
              .run(
                  "dgst",
                  "-sha256",
                  "-mac",
                  "HMAC",
                  "-macopt",
                  "hexkey:" + SEED.toString().replace("-", ""),
                  in.toString())
              .ok()
              .out();
      byte[] b = HexFormat.of().parseHex(out.substring(out.lastIndexOf(' ') + 1).strip());
      b[6] = (byte) ((b[6] & 0x0f) | 0x40);
      b[8] = (byte) ((b[8] & 0x3f) | 0x80);
      String h = HexFormat.of().formatHex(b, 0, 16);
      return h.substring(0, 8)
          + "-"
          + h.substring(8, 12)
          + "-"
          + h.substring(12, 16)
          + "-"
          + h.substring(16, 20)
          + "-"
          + h.substring(20);
    } finally {
      Files.delete(in);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {512, 4096})
  void buildsADdiTheToolsAccept(int sectorSize) throws Exception {
    Path fs = ext4(dir, "fs.img");
    Openssl.rsa(dir, "signer", 2048);
    Path out = dir.resolve("image.raw");
    BuiltImage built = build(fs, out, sectorSize, signer(dir));

    String[] sgdiskAndSfdisk =
        onLoop(
            out,
            sectorSize,
            loop ->
                new String[] {
                  Tool.of("sgdisk").run("-v", loop).ok().out(),
                  Tool.of("sfdisk").run("--json", loop).ok().out()
                });
    assertThat(sgdiskAndSfdisk[0]).contains("No problems found.");

    Map<?, ?> table =
        (Map<?, ?>) ((Map<?, ?>) Json.parse(sgdiskAndSfdisk[1])).get("partitiontable");
    assertThat(table.get("label")).isEqualTo("gpt");
    assertThat(table.get("sectorsize")).isEqualTo((long) sectorSize);
    List<?> parts = (List<?>) table.get("partitions");
    assertThat(parts).hasSize(3);
    String root = built.rootHash();
    List<String> expectedTypes =
        List.of(
            "4f68bce3-e8cd-4db1-96e7-fbcaf984b709",
            "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5",
            "41092b05-9fc8-4523-994f-2def0408b176");
    List<String> names = List.of("root-x86-64", "root-x86-64-verity", "root-x86-64-verity-sig");
    for (int i = 0; i < 3; i++) {
      Map<?, ?> p = (Map<?, ?>) parts.get(i);
      assertThat(((String) p.get("type")).toLowerCase()).isEqualTo(expectedTypes.get(i));
      assertThat(p.get("name")).isEqualTo(names.get(i));
      if (i < 2) { // data and verity read-only; the signature's type has no such flag
        assertThat((String) p.get("attrs")).isEqualTo("GUID:60");
      } else {
        assertThat(p.get("attrs")).isNull();
      }
      GptEntry e = built.partitions().get(i);
      assertThat(p.get("start")).isEqualTo(e.firstLba());
      assertThat(p.get("size")).isEqualTo(e.sectors());
    }
    assertThat(uuidHex((Map<?, ?>) parts.get(0))).isEqualTo(root.substring(0, 32));
    assertThat(uuidHex((Map<?, ?>) parts.get(1))).isEqualTo(root.substring(root.length() - 32));

    Path data = extract(out, built.partitions().get(0), sectorSize, "data.part");
    Path verity = extract(out, built.partitions().get(1), sectorSize, "verity.part");
    assertThat(Arrays.copyOf(Files.readAllBytes(data), (int) Files.size(fs)))
        .isEqualTo(Files.readAllBytes(fs));
    Veritysetup.run("verify", data.toString(), verity.toString(), root).ok();
    String dump = Veritysetup.run("dump", verity.toString()).ok().out();
    assertThat(dump)
        .contains("Hash type:       \t1")
        .contains("Data blocks:     \t" + Files.size(data) / 4096)
        .contains("Salt:            \t" + HexFormat.of().formatHex(built.params().salt()))
        .contains("UUID:            \t" + repartDerivedUuid("verity-uuid"));

    byte[] sigPart = Files.readAllBytes(extract(out, built.partitions().get(2), sectorSize, "s"));
    VeritySignature sig = VeritySignature.parse("signature partition", sigPart);
    assertThat(sig.rootHash()).isEqualTo(root);
    String json = new String(sigPart, US_ASCII).replace("\0", "");
    assertThat(json).startsWith("{\"rootHash\":\"" + root + "\",\"certificateFingerprint\":\"");
    Files.write(dir.resolve("sig.der"), sig.signature());
    Files.writeString(dir.resolve("roothash.txt"), root);
    Openssl.in(dir)
        .check(
            "smime",
            "-verify",
            "-binary",
            "-inform",
            "der",
            "-in",
            "sig.der",
            "-content",
            "roothash.txt",
            "-nointern",
            "-noverify",
            "-certfile",
            "signer.crt",
            "-out",
            "/dev/null");
    String fingerprint =
        Openssl.in(dir)
            .check("x509", "-in", "signer.crt", "-noout", "-fingerprint", "-sha256")
            .out();
    assertThat(fingerprint.substring(fingerprint.indexOf('=') + 1).strip().replace(":", ""))
        .isEqualToIgnoringCase(sig.certificateFingerprint());
  }

  @ParameterizedTest
  @ValueSource(ints = {512, 4096})
  void readsBackWhatItWroteAndTwoBuildsAreByteIdentical(int sectorSize) throws Exception {
    Path fs = ext4(dir, "fs.img");
    BuiltImage a = build(fs, dir.resolve("a.raw"), sectorSize, null);
    build(fs, dir.resolve("b.raw"), sectorSize, null);
    assertThat(Files.readAllBytes(dir.resolve("a.raw")))
        .isEqualTo(Files.readAllBytes(dir.resolve("b.raw")));
    try (FileDevice d = FileDevice.openRead(dir.resolve("a.raw"))) {
      Gpt gpt = Gpt.read(d);
      assertThat(gpt.sectorSize()).isEqualTo(sectorSize);
      assertThat(gpt.partitions()).isEqualTo(a.partitions());
      assertThat(gpt.header()).isEqualTo(a.gpt().header());
      assertThat(gpt.warnings()).isEmpty();
    }
  }

  static BuiltImage build(Path fs, Path out, int sectorSize, RootHashSigner signer)
      throws IOException, GeneralSecurityException {
    BuildRequest r =
        new BuildRequest(Designator.ROOT, "x86-64", sectorSize, 4096, SEED, null, signer);
    try (FileDevice in = FileDevice.openRead(fs);
        FileDevice o = FileDevice.openWrite(out)) {
      return DdiBuilder.build(r, in, o, ProgressListener.NONE);
    }
  }

  static RootHashSigner signer(Path dir) throws IOException {
    return RootHashSigner.of(
        Pem.readPrivateKey(dir.resolve("signer.key")),
        Pem.readCertificates(dir.resolve("signer.crt")).getFirst());
  }

  /** A 16 MiB ext4 file system of a few files, made by mkfs.ext4 -d. */
  static Path ext4(Path dir, String name) throws IOException {
    Path src = Files.createDirectories(dir.resolve("src-" + name));
    byte[] big = new byte[700_000];
    new SplittableRandom(32).nextBytes(big);
    Files.write(src.resolve("app.bin"), big);
    Files.writeString(src.resolve("os-release"), "ID=jverity\n");
    Path img = dir.resolve(name);
    Tool.of("mkfs.ext4")
        .run(
            "-q",
            "-b",
            "4096",
            "-E",
            "root_owner=0:0",
            "-U",
            "clear",
            "-d",
            src.toString(),
            img.toString(),
            "16M")
        .ok();
    return img;
  }

  static Path extract(Path image, GptEntry e, int sectorSize, String name) throws IOException {
    Path part = image.resolveSibling(name);
    try (FileDevice d = FileDevice.openRead(image)) {
      byte[] b = new byte[(int) e.size(sectorSize)];
      d.readFully(e.offset(sectorSize), b, 0, b.length);
      Files.write(part, b);
    }
    return part;
  }

  private static String uuidHex(Map<?, ?> p) {
    return ((String) p.get("uuid")).replace("-", "").toLowerCase();
  }

  /**
   * {@code use} run on the image as a disk of its sector size: a read-only loop device with that
   * logical sector size. sgdisk and Debian 12's sfdisk read a plain file as 512-byte sectors, where
   * a 4Kn table is no table at all (and "No problems found" would mean nothing).
   */
  static <T> T onLoop(Path image, int sectorSize, Function<String, T> use) {
    Tool losetup = Tool.of("losetup");
    String loop =
        losetup
            .run("-f", "--show", "-r", "-b", "" + sectorSize, image.toString())
            .ok()
            .out()
            .strip();
    try {
      return use.apply(loop);
    } finally {
      losetup.run("-d", loop).ok();
    }
  }
}
