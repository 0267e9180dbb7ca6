package org.jverity.cli.ddi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.HostedServer;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * Altered DDIs at the command line: each refusal of {@code ddi verify}, {@code ddi inspect} and
 * {@code open} is one line on stderr (a warning line before it where the alteration is one systemd
 * ignores), no stack trace, and its own exit code; {@code open} exits before it listens. Two
 * signature partitions are taken as systemd-dissect 252 takes them (it lists the one it uses): the
 * first of equal labels, a newer label over an older; a signature valid for another root hash (the
 * partitions renamed to that hash's halves) is the tree's wrong root hash; a flipped data byte is
 * named by block, and served, fails the read of that block alone; an image cut short is refused, as
 * systemd-dissect refuses it; a certificate as {@code .pem} alone is no trust, and {@code open}
 * says it was ignored.
 */
class DdiRefusalsTest {
  @TempDir Path dir;
  private DdiImages images;
  private Path fs;
  private Path image;
  private Map<?, ?> inspected;

  @BeforeEach
  void signedImage() throws Exception {
    images = new DdiImages(dir);
    Path src = Files.createDirectories(dir.resolve("src"));
    byte[] b = new byte[3_000_000];
    new SplittableRandom(32).nextBytes(b);
    Files.write(src.resolve("app.bin"), b);
    fs = images.ext4(src, "rootfs.ext4");
    image = images.signed(fs, "image.raw");
    inspected = DdiImages.inspect(image);
  }

  private ToolRun verify(String... extra) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "ddi",
                "verify",
                image.toString(),
                "--cert-dir",
                images.certDir().toString(),
                "--arch",
                "x86-64"));
    args.addAll(Arrays.asList(extra));
    return Jverity.run(args);
  }

  /**
   * {@code open IMAGE NAME --cert-dir DIR}: it must exit, having served nothing (a run that listens
   * never returns by itself, so a minute without an end is a failure).
   */
  private ToolRun refusedOpen(Path certDir) throws Exception {
    String[] args = {
      "open",
      image.toString(),
      "refused",
      "--cert-dir",
      certDir.toString(),
      "--arch",
      "x86-64",
      "--port",
      "0",
      "--runtime-dir",
      dir.resolve("run").toString()
    };
    CompletableFuture<ToolRun> run = CompletableFuture.supplyAsync(() -> Jverity.run(args));
    ToolRun r;
    try {
      r = run.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      Jverity.run("close", "refused", "--runtime-dir", dir.resolve("run").toString());
      return fail("open did not exit within a minute: it serves %s", image);
    }
    assertThat(r.stdout()).as("nothing served: %s", r).isEmpty();
    assertThat(r.stderr()).doesNotContain("Exception").doesNotContain("\tat ");
    return r;
  }

  private static void oneLine(ToolRun r, int exitCode, String line) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(exitCode);
    assertThat(r.stderrLines()).as(r.toString()).containsExactly(line);
  }

  @Test
  void ofTwoSignaturePartitionsWithOneLabelTheFirstIsTakenAsSystemdDissectTakesIt()
      throws Exception {
    String other = HexFormat.of().formatHex(new byte[32]).replace('0', 'a');
    int added =
        DdiImages.addSignaturePartition(
            image, "root-x86-64-verity-sig", images.signatureJson(other));
    assertThat(added).isEqualTo(4);

    Map<?, ?> dissect = SystemdDissectTest.dissect(image.toString());
    assertThat(SystemdDissectTest.partno(dissect, "root-verity-sig")).isEqualTo(3);
    ToolRun inspect =
        Jverity.run(
            "ddi",
            "inspect",
            image.toString(),
            "--cert-dir",
            images.certDir().toString(),
            "--arch",
            "x86-64");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.stdout())
        .contains("Signature partition 3: rootHash " + DdiImages.rootHash(inspected))
        .contains("Signature partition 4: rootHash " + other)
        .contains(
            "signature: partition 3 (root-x86-64-verity-sig)\n"
                + "  note: 2 signature partitions: partition 3 (root-x86-64-verity-sig) used;"
                + " systemd before v259 (#39664) takes the newest label, partition 3"
                + " (root-x86-64-verity-sig)\n");
    assertThat(inspect.stdout().indexOf("Signature partition 3"))
        .as("in table order")
        .isLessThan(inspect.stdout().indexOf("Signature partition 4"));
    ToolRun ok = verify();
    assertThat(ok.exitCode()).as(ok.toString()).isZero();
    assertThat(ok.stdout())
        .startsWith(
            "root: partition 1 (root-x86-64) verified (root hash "
                + DdiImages.rootHash(inspected)
                + " from the signature partition, signed by ");
  }

  @Test
  void ofTwoSignaturePartitionsANewerLabelWinsAsInSystemdDissectAndItsHashNamesNoPartition()
      throws Exception {
    String other = "bb".repeat(32);
    DdiImages.addSignaturePartition(image, "root-x86-64-verity-sig_2", images.signatureJson(other));

    Map<?, ?> dissect = SystemdDissectTest.dissect(image.toString());
    assertThat(SystemdDissectTest.partno(dissect, "root-verity-sig")).isEqualTo(4);
    Map<?, ?> use = (Map<?, ?>) ((List<?>) DdiImages.inspect(image).get("wouldUse")).getFirst();
    assertThat(use.get("signature")).isEqualTo(4L);
    assertThat(use.get("rootHash")).isEqualTo(other);
    assertThat(use.get("verity")).isNull();

    String warning =
        "jverity: WARNING: root: the root hash from the signature partition names no partition of"
            + " this image";
    ToolRun v = verify();
    assertThat(v.exitCode()).as(v.toString()).isEqualTo(ExitCode.DDI_INVALID);
    assertThat(v.stderrLines())
        .containsExactly(
            warning,
            "jverity: root: nothing to verify (no verity partition matches; 'jverity ddi"
                + " inspect' says why)");
    ToolRun o = refusedOpen(images.certDir());
    assertThat(o.exitCode()).as(o.toString()).isEqualTo(ExitCode.DDI_INVALID);
    assertThat(o.stderrLines())
        .singleElement()
        .asString()
        .isEqualTo(
            "jverity: "
                + image
                + ": partition 1 (root-x86-64) cannot be verified (no verity partition matches"
                + " its root hash; 'jverity ddi inspect' says why)");
  }

  @Test
  void withTheRootHashGivenASignatureThatSignsAnotherIsWhySystemd252RefusesTheImage()
      throws Exception {
    String root = DdiImages.rootHash(inspected);
    long sig3 = DdiImages.offset(DdiImages.partition(inspected, 3));
    byte[] original = DdiImages.read(image, sig3, 16 << 10);
    DdiImages.write(image, sig3, images.signatureJson("cc".repeat(32)));
    DdiImages.addSignaturePartition(image, "root-x86-64-verity-sig", original);

    // systemd 252 takes partition 3, whatever the root hash, and then finds it signs another
    ToolResult dissect =
        Tool.of("systemd-dissect")
            .env("SYSTEMD_LOG_LEVEL", "debug")
            .run("--no-pager", "--json=short", "--root-hash=" + root, image.toString());
    assertThat(dissect.exit()).as(dissect.toString()).isEqualTo(1);
    assertThat(dissect.stderr())
        .contains(
            "Root hash in signature JSON data ("
                + "cc".repeat(32)
                + ") doesn't match configured hash ("
                + root
                + ").")
        .contains("Failed to load verity signature partition: Invalid argument");
    ToolRun inspect =
        Jverity.run(
            "ddi",
            "inspect",
            image.toString(),
            "--root-hash",
            root,
            "--cert-dir",
            images.certDir().toString(),
            "--arch",
            "x86-64");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.stdout())
        .contains(
            "signature: partition 4 (root-x86-64-verity-sig)\n"
                + "  note: 2 signature partitions: partition 4 (root-x86-64-verity-sig) used;"
                + " systemd before v259 (#39664) takes the newest label, partition 3"
                + " (root-x86-64-verity-sig)\n");
    assertThat(inspect.stderrLines())
        .containsExactly(
            "jverity: WARNING: root: systemd-dissect before v259 (#39664) refuses this image: it"
                + " takes partition 3 (root-x86-64-verity-sig), whose rootHash is not the root"
                + " hash from the command line (\"Failed to load verity signature partition:"
                + " Invalid argument\")");
  }

  @Test
  void aSignatureValidForAnotherRootHashIsTheWrongRootHashForVerifyAndOpen() throws Exception {
    String root = DdiImages.rootHash(inspected);
    String forged = "5e".repeat(16) + "7f".repeat(16);
    DdiImages.write(
        image, DdiImages.offset(DdiImages.partition(inspected, 3)), images.signatureJson(forged));
    Tool.of("sgdisk")
        .run(
            "-u",
            "1:" + DdiImages.uuidOfHex(forged.substring(0, 32)),
            "-u",
            "2:" + DdiImages.uuidOfHex(forged.substring(32)),
            image.toString())
        .ok();

    ToolRun inspect =
        Jverity.run(
            "ddi",
            "inspect",
            image.toString(),
            "--cert-dir",
            images.certDir().toString(),
            "--arch",
            "x86-64");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.stdout())
        .contains("root hash: " + forged + " (from the signature partition)")
        .contains("signed by " + images.certDir().resolve("signer.crt"));
    oneLine(
        verify(),
        ExitCode.ROOT_HASH_MISMATCH,
        "jverity: root: the tree's root hash is not " + forged);
    oneLine(
        refusedOpen(images.certDir()),
        ExitCode.ROOT_HASH_MISMATCH,
        "jverity: export refused: wrong root hash: the tree on "
            + image
            + " hashes to "
            + root
            + " (its top block agrees with the blocks below it)");
  }

  @Test
  void aFlippedDataByteIsNamedByVerifyAndServedFailsTheReadOfItsBlockAlone() throws Exception {
    long data = DdiImages.offset(DdiImages.partition(inspected, 1));
    byte[] block7 = DdiImages.read(image, data + 7 * 4096L, 4096);
    block7[100] ^= 0x01;
    DdiImages.write(image, data + 7 * 4096L, block7);

    oneLine(
        verify(),
        ExitCode.CORRUPTION,
        "jverity: root: partition 1 (root-x86-64): data block 7 is corrupted");
    byte[] ext4 = Files.readAllBytes(fs);
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            image.toString(),
            "root",
            "--cert-dir",
            images.certDir().toString(),
            "--arch",
            "x86-64",
            "--port",
            "0")) {
      String uri = server.line();
      assertThat(readBlock(uri, 7)).as("the flipped block: EIO").isNull();
      for (long ok : new long[] {0, 6, 8, 700}) {
        assertThat(readBlock(uri, ok))
            .as("block %d", ok)
            .isEqualTo(
                HexFormat.of()
                    .formatHex(Arrays.copyOfRange(ext4, (int) ok * 4096, (int) (ok + 1) * 4096)));
      }
      Process copy = Tool.of("nbdcopy").start(uri, "-");
      copy.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      String err = new String(copy.getErrorStream().readAllBytes());
      assertThat(copy.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(copy.exitValue()).as("nbdcopy of the export: %s", err).isNotZero();
      assertThat(err).contains("Input/output error");
      assertThat(server.stderr()).contains("data block 7");
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void anImageCutShortIsRefusedByInspectVerifyAndOpenAsBySystemdDissect() throws Exception {
    long size = Files.size(image);
    try (var ch =
        java.nio.channels.FileChannel.open(image, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(size - (1 << 20));
    }
    long sectors = (size - (1 << 20)) / 512;
    String line =
        "jverity: "
            + image
            + ": "
            + sectors
            + " sectors of 512 bytes (expected: at least "
            + size / 512
            + ", as its GPT says: the image is truncated)";
    oneLine(
        Jverity.run("ddi", "inspect", image.toString(), "--arch", "x86-64"),
        ExitCode.DDI_INVALID,
        line);
    oneLine(verify(), ExitCode.DDI_INVALID, line);
    oneLine(refusedOpen(images.certDir()), ExitCode.DDI_INVALID, line);

    ToolResult dissect = Tool.of("systemd-dissect").run("--no-pager", image.toString());
    assertThat(dissect.exit()).as(dissect.toString()).isEqualTo(1);
    assertThat(dissect.stderr().strip())
        .isEqualTo(image + ": Couldn't identify a suitable partition table or file system.");
  }

  @Test
  void aPemCertificateAloneIsNoTrustAndOpenSaysItIsIgnored() throws Exception {
    Path pems = Files.createDirectories(dir.resolve("pems"));
    Files.copy(dir.resolve("signer.crt"), pems.resolve("signer.pem"));
    String ignored =
        pems.resolve("signer.pem") + ": ignored (systemd reads only *.crt in " + pems + ")";
    ToolRun v =
        Jverity.run(
            "ddi", "verify", image.toString(), "--cert-dir", pems.toString(), "--arch", "x86-64");
    assertThat(v.exitCode()).as(v.toString()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(v.stderrLines())
        .containsExactly(
            "jverity: WARNING: " + ignored,
            "jverity: partition 3 (root-x86-64-verity-sig): signed, but no trusted certificate"
                + " (no *.crt in the verity.d directories)");
    oneLine(
        refusedOpen(pems),
        ExitCode.SIGNATURE_INVALID,
        "jverity: partition 3 (root-x86-64-verity-sig): no trusted certificate (*.crt) to check"
            + " it with; "
            + ignored);
  }

  /** Data block {@code block} of the export as nbdsh reads it, hex; null when the read fails. */
  private static String readBlock(String uri, long block) {
    ToolResult r =
        Tool.of("nbdsh").run("-u", uri, "-c", "print(h.pread(4096, " + block * 4096 + ").hex())");
    return r.exit() == 0 ? r.out().strip() : null;
  }
}
