package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * FEC as a user meets it: an image formatted by veritysetup with --fec-device, damaged, then {@code
 * verify --fec-device} (success when everything is correctable, as veritysetup), {@code read
 * --fec-device} (the original bytes, one log line per correction), {@code repair} (--dry-run writes
 * nothing; a repair that veritysetup then accepts), damage beyond the code's capability (failures,
 * never a wrong byte), FEC in the hash file at an offset, and bad FEC input.
 */
class FecCommandsTest {
  private static final String SALT = "5a".repeat(32);
  private static final String UUID = "00000000-0000-4000-8000-00000000beef";
  @TempDir Path dir;

  private record Image(Path data, Path hash, Path fec, String root, byte[] original) {}

  /** {@code blocks} random 4 KiB blocks formatted by veritysetup with FEC. */
  private Image image(int blocks, int roots, boolean fecInHashFile) throws Exception {
    byte[] bytes = new byte[blocks * 4096];
    new SplittableRandom(blocks * 31L + roots).nextBytes(bytes);
    Path data = Files.write(dir.resolve("data.img"), bytes);
    Path hash = dir.resolve("data.hash");
    Path fec = fecInHashFile ? hash : dir.resolve("data.fec");
    Files.deleteIfExists(hash);
    Files.deleteIfExists(dir.resolve("data.fec"));
    if (fecInHashFile) { // FEC covers the hash file up to its offset: the file must reach it
      try (RandomAccessFile f = new RandomAccessFile(hash.toFile(), "rw")) {
        f.setLength(1L << 20);
      }
    }
    String offset = fecInHashFile ? String.valueOf(1L << 20) : "0"; // past the tree of these sizes
    ToolRun f =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            hash.toString(),
            "--fec-device",
            fec.toString(),
            "--fec-roots",
            String.valueOf(roots),
            "--fec-offset",
            offset,
            "--salt",
            SALT,
            "--uuid",
            UUID);
    assertThat(f.exitCode()).as(f.toString()).isZero();
    String root =
        f.stdout()
            .lines()
            .filter(l -> l.startsWith("Root hash:"))
            .findFirst()
            .orElseThrow()
            .replaceAll(".*\\s", "");
    return new Image(data, hash, fec, root, bytes);
  }

  /**
   * Changes {@code count} bytes at {@code at}, each by a different nonzero value (seeded by the
   * offset): damage in two blocks of one round must not cancel out, as equal changes would in the
   * XOR every codeword has.
   */
  private static void flip(Path file, long at, int count) throws Exception {
    SplittableRandom rnd = new SplittableRandom(at);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      for (int i = 0; i < count; i++) {
        f.seek(at + i);
        int b = f.read();
        f.seek(at + i);
        f.write(b ^ (1 + rnd.nextInt(255)));
      }
    }
  }

  private static String[] fecArgs(Image im, int roots, boolean inHash) {
    return new String[] {
      "--fec-device",
      im.fec().toString(),
      "--fec-roots",
      String.valueOf(roots),
      "--fec-offset",
      inHash ? String.valueOf(1L << 20) : "0"
    };
  }

  private static String[] with(String[] head, String... tail) {
    String[] all = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  @Test
  void correctableDamageVerifiesReadsBackAndIsRepairedForVeritysetup() throws Exception {
    for (boolean inHash : new boolean[] {false, true}) {
      Image im = image(600, 4, inHash);
      flip(im.data(), 5000, 8); // data block 1
      flip(im.data(), 300 * 4096L, 4096); // all of data block 300
      flip(
          im.hash(),
          2 * 4096L + 77,
          3); // level-0 hash block 2 (block 0 is the superblock, 1 the top)
      String[] base = {im.data().toString(), im.hash().toString(), im.root()};
      String[] fec = fecArgs(im, 4, inHash);

      assertThat(Jverity.run(with(with(new String[] {"verify"}, base))).exitCode())
          .isEqualTo(ExitCode.CORRUPTION);
      ToolRun verify = Jverity.run(with(with(new String[] {"verify"}, base), fec));
      assertThat(verify.exitCode()).as(verify.toString()).isZero();
      // veritysetup's line means what veritysetup's means: the bytes corrected (8 + 4096 + 3
      // changed).
      ToolRun theirs = VeritysetupOracle.run(with(new String[] {"verify"}, with(base, fec)));
      assertThat(theirs.stderr())
          .as(theirs.toString())
          .contains("Found 4107 repairable errors with FEC device.");
      assertThat(verify.stderr())
          .contains(
              "data block 300 (position 1228800) is corrupted (correctable with FEC)",
              "hash block 2 (level 0, position 8192) is corrupted (correctable with FEC)",
              "Found 4107 repairable errors with FEC device.",
              "jverity: 3 blocks are correctable with FEC");

      Path out = dir.resolve("read.img");
      ToolRun read =
          Jverity.run(with(with(new String[] {"read"}, base), with(fec, "-o", out.toString())));
      assertThat(read.exitCode()).as(read.toString()).isZero();
      assertThat(Files.readAllBytes(out)).isEqualTo(im.original());
      assertThat(read.stderr()).contains("jverity: data block 300 corrected with FEC");

      byte[] damaged = Files.readAllBytes(im.data());
      ToolRun dry = Jverity.run(with(with(new String[] {"repair"}, base), with(fec, "--dry-run")));
      assertThat(dry.exitCode()).as(dry.toString()).isZero();
      assertThat(dry.stdout())
          .contains(
              "would repair data block 1",
              "would repair data block 300",
              "would repair hash block 2 (level 0)",
              "Would repair 3 blocks.");
      assertThat(Files.readAllBytes(im.data())).isEqualTo(damaged);

      ToolRun repair = Jverity.run(with(with(new String[] {"repair"}, base), fec));
      assertThat(repair.exitCode()).as(repair.toString()).isZero();
      assertThat(Files.readAllBytes(im.data())).isEqualTo(im.original());
      assertThat(VeritysetupOracle.run("verify", base[0], base[1], base[2]).exitCode()).isZero();
      assertThat(VeritysetupOracle.run(with(new String[] {"verify"}, with(base, fec))).exitCode())
          .isZero();
    }
  }

  @Test
  void verifyAndRepairInJsonSayWhatTheTextSays() throws Exception {
    Image im = image(600, 4, false);
    flip(im.data(), 5000, 8); // data block 1
    flip(im.data(), 300 * 4096L, 4096); // all of data block 300
    flip(im.hash(), 2 * 4096L + 77, 3); // level-0 hash block 2
    String[] base = {im.data().toString(), im.hash().toString(), im.root()};
    String[] fec = fecArgs(im, 4, false);
    ToolRun verify = Jverity.run(with(with(new String[] {"verify"}, base), with(fec, "--json")));
    assertThat(verify.exitCode()).as("%s", verify).isZero();
    assertThat(JsonCheck.stdout(verify))
        .containsEntry("ok", true)
        .containsEntry("exitCode", 0L)
        .containsEntry("fecCorrectableBlocks", 3L)
        .containsEntry("fecUncorrectableDataBlocks", 0L);

    ToolRun text = Jverity.run(with(with(new String[] {"repair"}, base), with(fec, "--dry-run")));
    ToolRun dry =
        Jverity.run(with(with(new String[] {"repair"}, base), with(fec, "--dry-run", "--json")));
    var m = JsonCheck.stdout(dry);
    assertThat(m)
        .containsEntry("ok", true)
        .containsEntry("dryRun", true)
        .containsEntry("repairedBlocks", 3L)
        .containsEntry("uncorrectableDataBlocks", 0L);
    java.util.List<String> named =
        ((java.util.List<?>) m.get("repairs"))
            .stream()
                .map(o -> (java.util.Map<?, ?>) o)
                .map(
                    e ->
                        "would repair "
                            + e.get("area")
                            + " block "
                            + e.get("block")
                            + (e.containsKey("level") ? " (level " + e.get("level") + ")" : ""))
                .toList();
    assertThat(named)
        .containsExactlyInAnyOrderElementsOf(
            text.stdoutLines().stream().filter(l -> l.startsWith("would repair ")).toList());
    assertThat(
            ((java.util.List<?>) m.get("repairs"))
                .stream()
                    .map(o -> (java.util.Map<?, ?>) o)
                    .filter(e -> e.get("block").equals(300L) && e.get("area").equals("data"))
                    .findFirst()
                    .orElseThrow()
                    .get("position"))
        .isEqualTo(300L * 4096);

    ToolRun repair = Jverity.run(with(with(new String[] {"repair"}, base), with(fec, "--json")));
    assertThat(JsonCheck.stdout(repair))
        .containsEntry("ok", true)
        .containsEntry("dryRun", false)
        .containsEntry("repairedBlocks", 3L);
    assertThat(Files.readAllBytes(im.data())).isEqualTo(im.original());
    ToolRun again = Jverity.run(with(with(new String[] {"repair"}, base), with(fec, "--json")));
    assertThat(JsonCheck.stdout(again))
        .containsEntry("ok", true)
        .containsEntry("repairedBlocks", 0L)
        .containsEntry("repairs", java.util.List.of());
  }

  @Test
  void aRepairThatCannotFinishStillReportsInOneJsonObject() throws Exception {
    Image im = image(600, 2, false); // roots 2: blocks 0, 3, 6 share round 0
    for (long b : new long[] {0, 3, 6}) {
      flip(im.data(), b * 4096, 4096);
    }
    flip(im.data(), 100 * 4096L + 9, 1); // alone in its round: correctable
    String[] base = {im.data().toString(), im.hash().toString(), im.root()};
    ToolRun repair =
        Jverity.run(
            with(with(new String[] {"repair"}, base), with(fecArgs(im, 2, false), "--json")));
    assertThat(repair.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    var m = JsonCheck.stdout(repair);
    java.util.List<String> errors =
        repair.stderrLines().stream().filter(l -> l.startsWith("jverity: ")).toList();
    assertThat(m)
        .containsEntry("ok", false)
        .containsEntry("exitCode", (long) ExitCode.CORRUPTION)
        .containsEntry("uncorrectableDataBlocks", 3L)
        .containsEntry("repairedBlocks", 1L)
        .containsEntry("error", errors.getLast().substring("jverity: ".length()));
    assertThat(m.get("repairs")).asString().contains("block=100");
  }

  @Test
  void damageBeyondTheCodeFailsAndNeverReturnsAWrongByte() throws Exception {
    Image im = image(600, 2, false); // roots 2: R = 3 rounds; blocks 0, 3, 6 share round 0
    for (long b : new long[] {0, 3, 6}) {
      flip(im.data(), b * 4096, 4096);
    }
    flip(im.data(), 100 * 4096L + 9, 1); // round 1: alone, correctable
    String[] base = {im.data().toString(), im.hash().toString(), im.root()};
    String[] fec = fecArgs(im, 2, false);
    ToolRun verify = Jverity.run(with(with(new String[] {"verify"}, base), fec));
    assertThat(verify.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(verify.stderr())
        .contains(
            "data block 100 (position 409600) is corrupted (correctable with FEC)",
            "data block 0 (position 0) is corrupted (FEC cannot correct it)",
            "cannot be corrected with FEC.");
    Path out = dir.resolve("read.img");
    ToolRun read =
        Jverity.run(with(with(new String[] {"read"}, base), with(fec, "-o", out.toString())));
    assertThat(read.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(out).doesNotExist(); // block 0 fails: a failed read leaves no --output
    ToolRun repair = Jverity.run(with(with(new String[] {"repair"}, base), fec));
    assertThat(repair.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    byte[] now = Files.readAllBytes(im.data());
    assertThat(Arrays.copyOfRange(now, 100 * 4096, 101 * 4096)) // the correctable block was written
        .isEqualTo(Arrays.copyOfRange(im.original(), 100 * 4096, 101 * 4096));
  }

  @Test
  void badFecInputIsOneLineWithItsCode() throws Exception {
    Image im = image(64, 2, false);
    String[] base = {"verify", im.data().toString(), im.hash().toString(), im.root()};
    flip(im.data(), 10, 1);
    Path shortFec = dir.resolve("short.fec");
    Files.write(shortFec, Arrays.copyOf(Files.readAllBytes(im.fec()), 100));
    ToolRun tooShort = Jverity.run(with(base, "--fec-device", shortFec.toString()));
    assertThat(tooShort.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(tooShort.stderrLines()).hasSize(1);
    ToolRun roots =
        Jverity.run(with(base, "--fec-device", im.fec().toString(), "--fec-roots", "30"));
    assertThat(roots.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(roots.stderrLines()).hasSize(1).first().asString().contains("FEC roots: 30");
    ToolRun offset =
        Jverity.run(with(base, "--fec-device", im.fec().toString(), "--fec-offset", "100"));
    assertThat(offset.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    ToolRun wrongRoots =
        Jverity.run(with(base, "--fec-device", im.fec().toString(), "--fec-roots", "3"));
    assertThat(wrongRoots.exitCode()).as("parity of another code corrects nothing").isNotZero();
    ToolRun noFec = Jverity.run("repair", im.data().toString(), im.hash().toString(), im.root());
    assertThat(noFec.exitCode()).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void anNbdServerCorrectsOnReadAndCountsIt() throws Exception {
    Tool.of("nbdcopy").require();
    Image im = image(300, 4, false);
    flip(im.data(), 42 * 4096L, 4096);
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            im.data().toString(),
            "disk",
            im.hash().toString(),
            im.root(),
            "--port",
            "0",
            "--fec-device",
            im.fec().toString(),
            "--fec-roots",
            "4",
            "--runtime-dir",
            dir.resolve("run").toString())) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri))
          .isEqualTo(NbdClients.sha256(new java.io.ByteArrayInputStream(im.original())));
      ToolRun status =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.stdout())
          .contains("status:        verified")
          .containsPattern("repaired: +1");
      assertThat(server.terminate()).isZero();
      assertThat(server.stderr())
          .contains("jverity: export disk: data block 42 corrected with FEC");
    }
  }
}
