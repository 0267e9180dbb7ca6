package org.jverity.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.DigestCommandTest;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.JsonCheck;
import org.jverity.cli.Jverity;
import org.jverity.cli.SigTools;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.Fsverity;

/**
 * {@code --json} as a script meets it: every command that reports prints one JSON object on stdout
 * (checked by Python's json module), {@code "ok"} and {@code "exitCode"} first, the values the text
 * output and the peer tools give; and a failure, even one of the command line itself, still prints
 * one object, {@code {"ok":false,"exitCode":N,"error":"..."}}, N the code the run exits with. open,
 * serve and status: {@code OpenCommandTest}, {@code ServeCommandTest}; repair: {@code
 * FecCommandsTest}.
 */
class JsonOutputTest {
  @TempDir Path dir;

  @Test
  void aFailureIsOneObjectWithTheExitCodeAndTheStderrLine() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String missing = dir.resolve("missing.img").toString();
    List<ToolRun> failures =
        List.of(
            Jverity.run("verify", missing, im.hash().toString(), im.root(), "--json"),
            Jverity.run(
                "verify",
                im.data().toString(),
                im.hash().toString(),
                im.root(),
                "--bogus",
                "--json"),
            Jverity.run("--json", "nosuchcommand"),
            Jverity.run("--json"),
            Jverity.run("digest", missing, "--json"),
            Jverity.run(
                "status", "nobody", "--runtime-dir", dir.resolve("run").toString(), "--json"),
            Jverity.run(
                "open", missing, "disk", im.hash().toString(), im.root(), "--port", "0", "--json"),
            Jverity.run("dump", missing, "--json"),
            Jverity.run(
                "demo",
                "--json")); // a command without --json: the command line is refused, in JSON
    for (ToolRun r : failures) {
      JsonCheck.failure(r);
    }
    Map<String, Object> first = JsonCheck.failure(failures.get(0));
    assertThat(first).containsEntry("exitCode", (long) ExitCode.IO_ERROR);
    assertThat(first.get("error")).asString().startsWith(missing + ": ");
    assertThat(failures.get(1).exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(failures.get(5).exitCode()).isEqualTo(ExitCode.INACTIVE);
    // after "--", --json is an argument: no JSON promised
    ToolRun plain = Jverity.run("digest", "--", "--json");
    assertThat(plain.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(plain.stdout()).isEmpty();
  }

  @Test
  void exitCodeIsTheOneTheProcessExitsWithAfterVeritysetupsMapping() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String wrong = im.root().substring(0, 63) + (im.root().endsWith("0") ? "1" : "0");
    ToolRun mapped =
        Jverity.run(
            "--veritysetup-exit-codes",
            "verify",
            im.data().toString(),
            im.hash().toString(),
            wrong,
            "--json");
    assertThat(mapped.exitCode())
        .isEqualTo(VeritysetupExitCodes.of(ExitCode.ROOT_HASH_MISMATCH))
        .isNotEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    Map<String, Object> m = JsonCheck.stdout(mapped);
    assertThat(m)
        .containsEntry("ok", false)
        .containsEntry("exitCode", (long) mapped.exitCode())
        .containsEntry("rootHashMatches", false);
    ToolRun usage = Jverity.run("--veritysetup-exit-codes", "read", "--json", "--nope");
    assertThat(JsonCheck.failure(usage))
        .containsEntry("exitCode", (long) VeritysetupExitCodes.of(ExitCode.USAGE));
  }

  @Test
  void formatDumpAndVerifySayOkAndTheTextsValues() throws Exception {
    Path data = Files.write(dir.resolve("d.img"), new byte[40 * 4096]);
    List<String> format =
        List.of("format", data.toString(), dir.resolve("d.hash").toString(), "--salt", "ab");
    ToolRun text = Jverity.run(format);
    Map<String, Object> f = JsonCheck.stdout(Jverity.run(concat(format, "--json")));
    assertThat(f)
        .containsEntry("ok", true)
        .containsEntry("exitCode", 0L)
        .containsEntry("rootHash", text.headerField("Root hash").strip())
        .containsEntry("identity", text.headerField("Identity").strip())
        .containsEntry("dataBlocks", 40L);
    assertThat(List.copyOf(f.keySet()).subList(0, 2)).containsExactly("ok", "exitCode");

    Map<String, Object> d =
        JsonCheck.stdout(Jverity.run("dump", dir.resolve("d.hash").toString(), "--json"));
    assertThat(d)
        .containsEntry("ok", true)
        .containsEntry("uuid", f.get("uuid"))
        .containsEntry("salt", "ab");

    String root = (String) f.get("rootHash");
    Map<String, Object> ok =
        JsonCheck.stdout(
            Jverity.run(
                "verify", data.toString(), dir.resolve("d.hash").toString(), root, "--json"));
    assertThat(ok)
        .containsEntry("ok", true)
        .containsEntry("exitCode", 0L)
        .containsEntry("identity", f.get("identity"));

    ToolRun bad =
        Jverity.run(
            "verify",
            data.toString(),
            dir.resolve("d.hash").toString(),
            root.substring(0, 63) + (root.endsWith("0") ? "1" : "0"),
            "--json");
    assertThat(bad.exitCode()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(JsonCheck.stdout(bad))
        .containsEntry("ok", false)
        .containsEntry("exitCode", 7L)
        .containsEntry("computedRootHash", root)
        .containsEntry("error", bad.stderrLines().getFirst().replaceFirst("^jverity: ", ""));

    // -v's "Command successful." would spoil stdout: under --json it goes to stderr
    ToolRun verbose =
        Jverity.run(
            "-v", "verify", data.toString(), dir.resolve("d.hash").toString(), root, "--json");
    assertThat(JsonCheck.stdout(verbose)).containsEntry("ok", true);
    assertThat(verbose.stderr()).contains("Command successful.");
  }

  @Test
  void digestGivesFsveritysDigestsOneObjectPerFile() throws Exception {
    Path a = Files.write(dir.resolve("a"), "hello\n".getBytes());
    byte[] big = new byte[3 * 65536 + 7];
    new java.util.SplittableRandom(5).nextBytes(big);
    Path b = Files.write(dir.resolve("b"), big);
    for (List<String> opts :
        List.of(
            List.<String>of(), List.of("--hash-alg=sha512", "--block-size=1024", "--salt=0102"))) {
      List<String> files = List.of(a.toString(), b.toString());
      ToolRun r = Jverity.run(concat(concat(concat(List.of("digest"), files), opts), "--json"));
      Map<String, Object> m = JsonCheck.stdout(r);
      assertThat(m).containsEntry("ok", true).containsEntry("exitCode", 0L);
      List<?> list = (List<?>) m.get("files");
      assertThat(list).hasSize(2);
      List<String> theirs = DigestCommandTest.fsverity(concat(files, opts)).stdoutLines();
      List<String> theirsSig =
          DigestCommandTest.fsverity(concat(concat(files, opts), "--for-builtin-sig"))
              .stdoutLines();
      for (int i = 0; i < 2; i++) {
        Map<?, ?> o = (Map<?, ?>) list.get(i);
        assertThat(o.get("file")).isEqualTo(files.get(i));
        assertThat(o.get("hashAlgorithm") + ":" + o.get("digest") + " " + o.get("file"))
            .isEqualTo(theirs.get(i));
        assertThat(theirsSig.get(i)).startsWith((String) o.get("builtinSigDigest"));
        assertThat(o.get("dataSize")).isEqualTo(Files.size(Path.of(files.get(i))));
        assertThat(o.get("blockSize")).isEqualTo(opts.isEmpty() ? 4096L : 1024L);
        assertThat(o.get("salt")).isEqualTo(opts.isEmpty() ? "-" : "0102");
      }
    }
    Path tree = dir.resolve("b.tree");
    Map<String, Object> sidecar =
        JsonCheck.stdout(
            Jverity.run("digest", b.toString(), "--out-merkle-tree", tree.toString(), "--json"));
    assertThat(sidecar).containsEntry("merkleTree", tree.toString());
    assertThat(Files.size(tree)).isPositive();
    // the second file is missing: no object for the first, the one failure object
    JsonCheck.failure(
        Jverity.run("digest", a.toString(), dir.resolve("nope").toString(), "--json"));
  }

  @Test
  void readNeedsOutputAndSummarisesWhatItWrote() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 32);
    List<String> base = List.of("read", im.data().toString(), im.hash().toString(), im.root());
    ToolRun toStdout = Jverity.run(concat(base, "--json"));
    assertThat(JsonCheck.failure(toStdout).get("error"))
        .asString()
        .startsWith("--json needs -o FILE");
    assertThat(toStdout.exitCode()).isEqualTo(ExitCode.USAGE);

    Path out = dir.resolve("out.img");
    ToolRun r =
        Jverity.run(
            concat(base, "-o", out.toString(), "--offset", "8K", "--length", "12K", "--json"));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(JsonCheck.stdout(r))
        .containsEntry("ok", true)
        .containsEntry("output", out.toString())
        .containsEntry("offset", 8192L)
        .containsEntry("length", 12288L)
        .containsEntry("identity", im.identity())
        .containsEntry("rootHash", im.root())
        .containsEntry("corruptions", 0L)
        .containsEntry("repaired", 0L);
    assertThat(Files.readAllBytes(out))
        .isEqualTo(Arrays.copyOfRange(Files.readAllBytes(im.data()), 8192, 8192 + 12288));

    im.corrupt(5);
    ToolRun ignoring =
        Jverity.run(concat(base, "-o", out.toString(), "--ignore-corruption", "--json"));
    assertThat(JsonCheck.stdout(ignoring))
        .containsEntry("ok", true)
        .containsEntry("corruptions", 1L)
        .containsEntry("length", 32L * 4096);
    ToolRun stopped = Jverity.run(concat(base, "-o", out.toString(), "--json"));
    assertThat(JsonCheck.failure(stopped)).containsEntry("exitCode", (long) ExitCode.CORRUPTION);
  }

  @Test
  void catSignAndVerifySigReportInJson() throws Exception {
    SigTools.rsa(dir, "signer");
    byte[] bytes = new byte[100000];
    new java.util.SplittableRandom(9).nextBytes(bytes);
    Path f = Files.write(dir.resolve("f"), bytes);
    String fsverity =
        Fsverity.tool()
            .in(dir)
            .check("digest", f.toString(), "--out-merkle-tree", "f.tree")
            .out()
            .strip();
    String digest = fsverity.substring("sha256:".length(), fsverity.indexOf(' '));

    Path sig = dir.resolve("f.sig");
    Map<String, Object> signed =
        JsonCheck.stdout(
            Jverity.run(
                "sign",
                f.toString(),
                sig.toString(),
                "--key=" + dir.resolve("signer.key"),
                "--cert=" + dir.resolve("signer.crt"),
                "--json"));
    assertThat(signed)
        .containsEntry("ok", true)
        .containsEntry("file", f.toString())
        .containsEntry("signature", sig.toString())
        .containsEntry("hashAlgorithm", "sha256")
        .containsEntry("digest", digest);

    Map<String, Object> verified =
        JsonCheck.stdout(
            Jverity.run(
                "verify-sig",
                f.toString(),
                sig.toString(),
                "--cert=" + dir.resolve("signer.crt"),
                "--json"));
    assertThat(verified)
        .containsEntry("ok", true)
        .containsEntry("digest", digest)
        .containsEntry("signer", "CN=signer");
    Path other = Files.write(dir.resolve("other"), "other".getBytes());
    ToolRun refused =
        Jverity.run(
            "verify-sig",
            other.toString(),
            sig.toString(),
            "--cert=" + dir.resolve("signer.crt"),
            "--json");
    assertThat(JsonCheck.failure(refused))
        .containsEntry("exitCode", (long) ExitCode.SIGNATURE_INVALID);

    Path out = dir.resolve("f.out");
    List<String> cat =
        List.of(
            "cat",
            f.toString(),
            "--merkle-tree",
            dir.resolve("f.tree").toString(),
            "--digest",
            "sha256:" + digest);
    assertThat(JsonCheck.failure(Jverity.run(concat(cat, "--json"))).get("error"))
        .asString()
        .startsWith("--json needs -o FILE");
    Map<String, Object> c =
        JsonCheck.stdout(Jverity.run(concat(cat, "-o", out.toString(), "--json")));
    assertThat(c)
        .containsEntry("ok", true)
        .containsEntry("output", out.toString())
        .containsEntry("length", (long) bytes.length)
        .containsEntry("digest", digest);
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  static List<String> concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }

  static List<String> concat(List<String> head, List<String> tail) {
    return concat(head, tail.toArray(String[]::new));
  }
}
