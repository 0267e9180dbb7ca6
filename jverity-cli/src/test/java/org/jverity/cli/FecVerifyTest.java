package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;

/**
 * {@code verify} and {@code repair} with FEC options, against veritysetup 2.6.1 (issue 14): a FEC
 * device that cannot be one is refused before anything is checked, a wrong root hash is said before
 * FEC is tried, and "Found N repairable errors" counts what veritysetup counts.
 */
class FecVerifyTest {
  @TempDir Path dir;
  Path data;
  Path hash;
  Path fec;
  String root;

  @BeforeEach
  void image() throws IOException {
    byte[] bytes = new byte[512 * 4096];
    new SplittableRandom(1414).nextBytes(bytes);
    data = Files.write(dir.resolve("d.img"), bytes);
    hash = dir.resolve("d.hash");
    fec = dir.resolve("d.fec");
    ToolRun f =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            hash.toString(),
            "--fec-device",
            fec.toString(),
            "--salt",
            "5a");
    assertThat(f.exitCode()).as("%s", f).isZero();
    root = f.headerField("Root hash").strip();
  }

  private List<String> args(String command, String rootHash, String... extra) {
    List<String> a = new ArrayList<>(List.of(command, data.toString(), hash.toString(), rootHash));
    a.addAll(List.of(extra));
    return a;
  }

  private static void damage(Path file, long at, int count) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      for (int i = 0; i < count; i++) {
        f.seek(at + i);
        int b = f.read();
        f.seek(at + i);
        f.write(b ^ (1 + i % 255)); // never 0: every byte changes
      }
    }
  }

  // --- item 3: a FEC device that cannot be one ---------------------------------------------------

  @ParameterizedTest(name = "{0} --fec-device {1}")
  @CsvSource({
    "verify, missing",
    "verify, directory",
    "verify, /dev/null",
    "repair, missing",
    "repair, directory",
    "repair, /dev/null"
  })
  void aFecDeviceThatCannotBeOneIsRefusedAsVeritysetupDoes(String command, String what)
      throws Exception {
    Path device =
        switch (what) {
          case "missing" -> dir.resolve("typo.fec");
          case "directory" -> Files.createDirectory(dir.resolve("fec.d"));
          default -> Path.of(what);
        };
    ToolRun r = Jverity.run(args(command, root, "--fec-device", device.toString()));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).startsWith("jverity: " + device + ": FEC file ");
    if (command.equals("verify")) { // veritysetup has no repair verb
      ToolRun theirs =
          VeritysetupOracle.run(args("verify", root, "--fec-device", device.toString()));
      List<String> ours = new ArrayList<>(List.of("--veritysetup-exit-codes"));
      ours.addAll(args("verify", root, "--fec-device", device.toString()));
      assertThat(Jverity.run(ours).exitCode())
          .as("veritysetup: %s", theirs)
          .isEqualTo(theirs.exitCode())
          .isEqualTo(4);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"verify", "repair"})
  void aTooShortFecFileIsRefusedEvenWhenTheImageVerifies(String command) throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.fec"));
    ToolRun r = Jverity.run(args(command, root, "--fec-device", empty.toString()));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
  }

  @Test
  void repairSaysAWrongRootHashBeforeTryingFec() throws Exception {
    damage(data, 7 * 4096 + 5, 3);
    byte[] damaged = Files.readAllBytes(data);
    String wrong = root.substring(0, 63) + (root.endsWith("0") ? "1" : "0");
    ToolRun r = Jverity.run(args("repair", wrong, "--fec-device", fec.toString()));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).startsWith("jverity: wrong root hash: ").doesNotContain("FEC cannot");
    assertThat(Files.readAllBytes(data)).isEqualTo(damaged);
  }

  @ParameterizedTest(name = "{0} {1} {2} without --fec-device")
  @CsvSource({
    "verify, --fec-roots, 99",
    "verify, --fec-offset, 4096",
    "repair, --fec-roots, 4",
    "read, --fec-roots, 4",
    "read, --fec-offset, 512"
  })
  void fecTuningWithoutAFecDeviceIsRefused(String command, String option, String value)
      throws Exception {
    List<String> a = args(command, root, option, value);
    if (command.equals("read")) {
      a.addAll(List.of("-o", dir.resolve("out").toString()));
    }
    ToolRun r = Jverity.run(a);
    assertThat(r.exitCode())
        .as("%s", r)
        .isEqualTo(command.equals("repair") ? ExitCode.USAGE : ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).contains("--fec-device");
  }

  @ParameterizedTest(name = "open {0}")
  @CsvSource({"--fec-roots 4, 3", "--fec-device /dev/null, 4"})
  void openRefusesFecOptionsThatCannotWorkBeforeListening(String option, int code)
      throws Exception {
    List<String> a =
        new ArrayList<>(
            List.of("open", data.toString(), "img", hash.toString(), root, "--port", "0"));
    a.addAll(List.of(option.split(" ")));
    try (HostedServer p = HostedServer.start(dir, a.toArray(String[]::new))) {
      assertThat(p.waitFor()).as(p.stderr()).isEqualTo(code);
      assertThat(p.stderr().lines())
          .as(p.stderr())
          .anyMatch(
              l ->
                  l.startsWith("jverity: ")
                      && l.toLowerCase(java.util.Locale.ROOT).contains("fec"));
    }
  }

  // --- item 4: the diagnosis before FEC; veritysetup's count ------------------------------------

  @Test
  void aWrongRootHashIsSaidBeforeFecIsTried() throws Exception {
    String wrong = root.substring(0, 63) + (root.endsWith("0") ? "1" : "0");
    ToolRun without = Jverity.run(args("verify", wrong));
    ToolRun with = Jverity.run(args("verify", wrong, "--fec-device", fec.toString()));
    assertThat(without.exitCode()).as("%s", without).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(with.exitCode()).as("%s", with).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(with.stderrLines()).as("%s", with).hasSize(1).isEqualTo(without.stderrLines());
    assertThat(with.stderr()).doesNotContain("FEC").contains("wrong root hash");
    ToolRun theirs = VeritysetupOracle.run(args("verify", wrong, "--fec-device", fec.toString()));
    assertThat(theirs.stderrLines())
        .as("veritysetup says it in one line too")
        .containsExactly("Verification of root hash failed.");
  }

  /**
   * veritysetup exits 1 for a wrong root hash, but 2 with {@code --fec-device} (the root hash's
   * -EFAULT becomes -EPERM once FEC was tried): verify's default, veritysetup's codes, do the same;
   * the detailed code is "wrong root hash" either way. Over damage jverity says corruption, with or
   * without FEC; veritysetup too, but not when FEC corrects the damage (then it exits 0).
   */
  @ParameterizedTest(name = "damaged: {0}, with FEC: {1}")
  @CsvSource({"false, false", "false, true", "true, false", "true, true"})
  void aWrongRootHashExitsAsVeritysetupDoesWithAndWithoutFec(boolean damaged, boolean withFec)
      throws Exception {
    if (damaged) {
      damage(data, 7 * 4096 + 5, 3);
    }
    String wrong = root.substring(0, 63) + (root.endsWith("0") ? "1" : "0");
    List<String> a =
        withFec ? args("verify", wrong, "--fec-device", fec.toString()) : args("verify", wrong);
    ToolRun theirs = VeritysetupOracle.run(a);
    List<String> ours = new ArrayList<>(a);
    ours.add("--veritysetup-exit-codes");
    ToolRun mine = Jverity.run(ours);
    // Damage FEC can correct under a wrong root hash: veritysetup 2.6.1 exits 0 (the -EPERM of
    // the data becomes FEC's success; only a root hash's -EFAULT is kept as -EPERM). jverity never
    // passes a root hash the tree does not hash to: corruption, 2.
    assertThat(theirs.exitCode())
        .as("veritysetup: %s", theirs)
        .isEqualTo(damaged && withFec ? 0 : withFec || damaged ? 2 : 1);
    assertThat(mine.exitCode()).as("%s", mine).isEqualTo(withFec || damaged ? 2 : 1);
    ToolRun detailed = Jverity.run(a);
    assertThat(detailed.exitCode())
        .as("%s", detailed)
        .isEqualTo(damaged ? ExitCode.CORRUPTION : ExitCode.ROOT_HASH_MISMATCH);
  }

  @Test
  void aWrongRootHashOverDamageIsNotHiddenByFecAttempts() throws Exception {
    damage(data, 7 * 4096 + 5, 3);
    String wrong = root.substring(0, 63) + (root.endsWith("0") ? "1" : "0");
    ToolRun without = Jverity.run(args("verify", wrong));
    ToolRun with = Jverity.run(args("verify", wrong, "--fec-device", fec.toString()));
    assertThat(with.exitCode()).as("%s", with).isEqualTo(without.exitCode());
    assertThat(with.stderr()).as("%s", with).isEqualTo(without.stderr()).doesNotContain("FEC");
  }

  @Test
  void aForeignHashFileIsSaidBeforeFecIsTried() throws Exception {
    byte[] other = new byte[512 * 4096];
    new SplittableRandom(15).nextBytes(other);
    Files.write(data, other);
    ToolRun with = Jverity.run(args("verify", root, "--fec-device", fec.toString()));
    assertThat(with.exitCode()).as("%s", with).isEqualTo(ExitCode.CORRUPTION);
    assertThat(with.stderrLines()).as("%s", with).hasSize(1);
    assertThat(with.stderr())
        .contains("hash file does not belong to this data")
        .doesNotContain("FEC");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "3 bytes in one data block        | 20580:3           | 3 | 1",
        "1 byte in each of 2 data blocks  | 4100:1 40000:1    | 2 | 2",
        "4 bytes in 2 blocks              | 20580:1 36864:3   | 4 | 2",
        "a whole block                    | 409600:4096       | 4096 | 1",
        "3 bytes in a level-0 hash block  | h8292:3           | 3 | 1",
        "data and hash blocks             | 20580:2 h12300:5  | 7 | 2"
      })
  void repairableErrorsCountTheBytesAsVeritysetupDoes(
      String what, String damage, long bytes, int blocks) throws Exception {
    for (String d : damage.split(" ")) {
      String[] at = d.split(":"); // OFFSET:COUNT in the data, hOFFSET:COUNT in the hash file
      boolean inHash = at[0].startsWith("h");
      damage(
          inHash ? hash : data,
          Long.parseLong(inHash ? at[0].substring(1) : at[0]),
          Integer.parseInt(at[1]));
    }
    ToolRun theirs = VeritysetupOracle.run(args("verify", root, "--fec-device", fec.toString()));
    ToolRun ours = Jverity.run(args("verify", root, "--fec-device", fec.toString()));
    String line = "Found " + bytes + " repairable errors with FEC device.";
    assertThat(theirs.stderrLines()).as("veritysetup: %s", theirs).contains(line);
    assertThat(ours.exitCode()).as("%s", ours).isZero();
    assertThat(ours.stderrLines())
        .as("%s", ours)
        .contains(
            line,
            "jverity: "
                + blocks
                + (blocks == 1 ? " block is" : " blocks are")
                + " correctable with FEC");
  }
}
