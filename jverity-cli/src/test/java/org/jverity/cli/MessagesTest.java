package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.VeritysetupExitCodes;
import org.jverity.cli.serve.ServeConfig;
import org.jverity.cli.syntax.Syntax;
import org.jverity.testkit.Openssl;

/**
 * What a user reads when something is wrong: one line, in jverity's words, naming the file or the
 * option, with the numbers right; no Java text ({@code Input length = 1}, {@code Illegal seek},
 * {@code IOException reading content.}, {@code Unmatched argument at index 2}).
 */
class MessagesTest {
  @TempDir Path dir;

  private String p(String name) {
    return dir.resolve(name).toString();
  }

  /** One line on stderr, "jverity: " and lower case, no Java class names; returns it. */
  private static String oneLine(ToolRun r, int code) {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(code);
    BadInputTest.assertOneErrorLine(r);
    String line = r.stderrLines().getFirst();
    assertThat(Character.isUpperCase(line.charAt("jverity: ".length())))
        .as("lower case: %s", line)
        .isFalse();
    assertThat(line)
        .doesNotContain("Exception", "Input length", "index ", "Illegal", "Unknown", "Missing");
    return line;
  }

  @Test
  void aBinaryRootHashFileIsNamedAndSaidNotText() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    Path binary =
        Files.write(
            dir.resolve("root.bin"), new byte[] {(byte) 0xd8, (byte) 0xff, 0, 1, (byte) 0x80});
    String line =
        oneLine(
            Jverity.run(
                "verify",
                im.data().toString(),
                im.hash().toString(),
                "--root-hash-file",
                binary.toString()),
            ExitCode.INVALID_PARAMETER);
    assertThat(line)
        .isEqualTo(
            "jverity: " + binary + ": not text (expected: the root hash in hex, or an identity)");
  }

  @Test
  void aSignatureThatIsNotDerSaysWhatIsWrongWithoutBouncyCastlesText() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    SigTools.rsa(dir, "signer");
    Path garbage =
        Files.write(dir.resolve("garbage.p7s"), new byte[] {(byte) 0xd8, 1, 2, 3, 4, 5, 6, 7});
    String line =
        oneLine(
            Jverity.run(
                "verify",
                im.data().toString(),
                im.hash().toString(),
                im.root(),
                "--root-hash-signature",
                garbage.toString(),
                "--trusted-cert",
                p("signer.crt")),
            ExitCode.SIGNATURE_INVALID);
    assertThat(line)
        .isEqualTo(
            "jverity: root hash signature: not a DER PKCS#7 signature (it does not start with a"
                + " DER SEQUENCE: byte 0 is 0xd8, not 0x30)");
    Path truncated =
        Files.write(dir.resolve("truncated.p7s"), new byte[] {0x30, (byte) 0x82, 0x10, 0});
    assertThat(
            oneLine(
                Jverity.run(
                    "verify",
                    im.data().toString(),
                    im.hash().toString(),
                    im.root(),
                    "--root-hash-signature",
                    truncated.toString(),
                    "--trusted-cert",
                    p("signer.crt")),
                ExitCode.SIGNATURE_INVALID))
        .endsWith("(its DER encoding is truncated or malformed)")
        .doesNotContain("IOException");
  }

  @Test
  void aKeyOfAnotherAlgorithmThanTheCertificatesIsAnEcKey() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    SigTools.rsa(dir, "signer"); // an RSA key and certificate
    Openssl.in(dir).check("ecparam", "-genkey", "-name", "prime256v1", "-noout", "-out", "ec.key");
    String line =
        oneLine(
            Jverity.run(
                "sign",
                "--key",
                p("ec.key"),
                "--cert",
                p("signer.crt"),
                im.data().toString(),
                p("out.sig")),
            ExitCode.INVALID_PARAMETER);
    assertThat(line).contains("an EC key, but the certificate holds an RSA key");
  }

  @Test
  void aHashDeviceThatCannotBePositionedNamesTheFile() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String line =
        oneLine(Jverity.run("format", im.data().toString(), "/proc/version"), ExitCode.IO_ERROR);
    assertThat(line).startsWith("jverity: /proc/version: ").doesNotContain("Illegal seek");
  }

  @Test
  void devNullAsTheHashDeviceIsRefusedAsACharacterDevice() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String line =
        oneLine(Jverity.run("format", im.data().toString(), "/dev/null"), ExitCode.IO_ERROR);
    assertThat(line)
        .isEqualTo(
            "jverity: /dev/null: the hash device is a character device (expected: a regular"
                + " file or a block device)");
    assertThat(VeritysetupOracle.run("format", im.data().toString(), "/dev/null").exitCode())
        .as("veritysetup refuses it too")
        .isEqualTo(VeritysetupExitCodes.of(ExitCode.IO_ERROR));
    assertThat(
            oneLine(
                Jverity.run("format", im.data().toString(), p("h"), "--fec-device", "/dev/zero"),
                ExitCode.IO_ERROR))
        .contains("/dev/zero: the FEC device is a character device");
  }

  @Test
  void parserMessagesAreLowerCaseAndSayWhatTheCommandTakes() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String data = im.data().toString();
    String hash = im.hash().toString();
    assertThat(oneLine(Jverity.run("verify", data, hash, im.root(), "extra"), ExitCode.USAGE))
        .isEqualTo(
            "jverity: unexpected argument 'extra' (verify takes DATA [HASH] [ROOT_HASH]) (try 'jverity verify"
                + " --help')");
    assertThat(oneLine(Jverity.run("dump", hash, "x", "y"), ExitCode.USAGE))
        .startsWith("jverity: unexpected arguments 'x', 'y' (dump takes HASH)");
    assertThat(oneLine(Jverity.run("verify", data, hash, im.root(), "--bogus"), ExitCode.USAGE))
        .isEqualTo("jverity: unknown option '--bogus' (try 'jverity verify --help')");
    assertThat(oneLine(Jverity.run("verify", data), ExitCode.USAGE))
        .isEqualTo("jverity: missing required parameter 'HASH' (try 'jverity verify --help')");
    assertThat(oneLine(Jverity.run("verify", data, hash, im.root(), "--hash"), ExitCode.USAGE))
        .isEqualTo("jverity: option '--hash' needs a value (ALG) (try 'jverity verify --help')");
    assertThat(oneLine(Jverity.run("sign", data, p("x.sig")), ExitCode.USAGE))
        .startsWith("jverity: missing required option '--");
  }

  @Test
  void anOffsetPastTheEndIsSaidAsTheOffsetNotANegativeLength() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String line =
        oneLine(
            Jverity.run(
                "read",
                im.data().toString(),
                im.hash().toString(),
                im.root(),
                "--offset",
                "1T",
                "-o",
                p("out")),
            ExitCode.INVALID_PARAMETER);
    assertThat(line)
        .isEqualTo(
            "jverity: --offset: 1099511627776 (expected: at most the data's size, 65536 bytes)");
  }

  @Test
  void theWrongRootHashLineIsJveritys() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    String wrong = (im.root().charAt(0) == '0' ? "1" : "0") + im.root().substring(1);
    ToolRun r = Jverity.run("verify", im.data().toString(), im.hash().toString(), wrong);
    assertThat(r.exitCode()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(r.stderrLines()).isNotEmpty().allMatch(l -> l.startsWith("jverity: "));
    assertThat(r.stderr())
        .contains("jverity: verification of root hash failed: the tree hashes to " + im.root());
  }

  /**
   * {@code read | head -c 10} in a real shell pipe: cat dies of SIGPIPE (141 in the shell); jverity
   * gets EPIPE, says nothing and exits 141 too.
   */
  @Test
  void readIntoAPipeThatHeadClosesEndsQuietlyAsCatDoes() throws Exception {
    FormattedImage im =
        FormattedImage.create(dir, "d", 4096); // 16 MiB: far more than a pipe buffer
    List<String> read = ServerProcess.javaCommand();
    read.addAll(List.of("read", im.data().toString(), im.hash().toString(), im.root()));
    String jverity = String.join(" ", read.stream().map(a -> "'" + a + "'").toList());
    String cat = "cat '" + im.data() + "'";
    ToolRun digest = Jverity.run("digest", im.data().toString(), "--out-merkle-tree", p("d.tree"));
    assertThat(digest.exitCode()).as("%s", digest).isZero();
    List<String> verifiedCat = ServerProcess.javaCommand();
    verifiedCat.addAll(
        List.of(
            "cat",
            im.data().toString(),
            "--merkle-tree",
            p("d.tree"),
            "--digest",
            digest.stdout().split(" ")[0]));
    String jverityCat = String.join(" ", verifiedCat.stream().map(a -> "'" + a + "'").toList());
    for (String[] c :
        List.of(
            new String[] {"cat", cat},
            new String[] {"read", jverity},
            new String[] {"jverity-cat", jverityCat})) {
      Process p =
          Jverity.detailed(
                  new ProcessBuilder(
                      "bash",
                      "-c",
                      c[1]
                          + " 2>'"
                          + p(c[0] + ".err")
                          + "' | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}"))
              .start();
      String status = new String(p.getInputStream().readAllBytes()).strip();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(status).as(c[0]).isEqualTo(String.valueOf(ExitCode.OUTPUT_CLOSED));
      assertThat(Files.readString(dir.resolve(c[0] + ".err"))).as(c[0]).isEmpty();
    }
  }

  // ---- help ----

  private static String flat(String help) {
    return help.replace('\n', ' ').replaceAll(" +", " ");
  }

  @Test
  void serveHelpListsEveryConfigKey() {
    String help = flat(Jverity.run("serve", "--help").stdout());
    List<String> keys = new ArrayList<>(ServeConfig.GENERIC_KEYS);
    keys.addAll(ServeConfig.EXPORT_KEYS);
    for (String key : keys) {
      assertThat(help)
          .as(key)
          .containsPattern("[ (]" + java.util.regex.Pattern.quote(key) + "[,;) ]");
    }
    assertThat(keys).contains("tls", "metrics-port", "runtime-dir", "fec-device", "fec-roots");
  }

  @Test
  void everyOptionStatesAtMostOneDefault() {
    for (String command : Commands.NAMES) {
      for (Syntax.Option<?> o : Commands.named(command).options()) {
        int defaults = o.help().split("default", -1).length - 1;
        assertThat(defaults).as("%s %s: %s", command, o.name(), o.help()).isLessThanOrEqualTo(1);
      }
    }
    assertThat(flat(Jverity.run("verify", "--help").stdout()))
        .contains("(default: the superblock's, else sha256)");
    assertThat(flat(Jverity.run("format", "--help").stdout())).contains("(default sha256)");
  }

  @Test
  void everyHelpEndsWithItsExitCodes() {
    for (String command : Commands.NAMES) {
      String help = Jverity.run(command, "--help").stdout().strip();
      String last = help.substring(help.lastIndexOf("\n\n") + 2);
      assertThat(last).as(command).startsWith("Exit codes (").endsWith(".").contains("0 success");
    }
  }

  @Test
  void verifySigTakesTrustedCertAsEveryOtherCommandAndCertStill() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    SigTools.rsa(dir, "signer");
    ToolRun sign =
        Jverity.run(
            "sign",
            "--key",
            p("signer.key"),
            "--cert",
            p("signer.crt"),
            im.data().toString(),
            p("d.sig"));
    assertThat(sign.exitCode()).as("%s", sign).isZero();
    for (String option : List.of("--trusted-cert", "--cert")) {
      ToolRun r =
          Jverity.run("verify-sig", im.data().toString(), p("d.sig"), option, p("signer.crt"));
      assertThat(r.exitCode()).as("%s %s", option, r).isZero();
    }
    assertThat(Jverity.run("verify-sig", "--help").stdout())
        .contains("--cert, --trusted-cert=CERT.pem");
  }

  // ---- the server ----

  private ServerProcess open(FormattedImage im, String name, String... extra) throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "open",
                im.data().toString(),
                name,
                im.hash().toString(),
                im.root(),
                "--port",
                "0"));
    args.addAll(List.of(extra));
    return ServerProcess.start(dir, args.toArray(String[]::new));
  }

  @Test
  void statusOfTheDefaultExportNamesIt() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    try (ServerProcess server = open(im, "")) {
      server.line();
      ToolRun status = Jverity.run("status", "", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.exitCode()).as("%s", status).isZero();
      assertThat(status.stdoutLines().getFirst()).isEqualTo("(default) is active.");
    }
  }

  @Test
  void statusListsABlockReadTwiceOnce() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    byte[] b = Files.readAllBytes(im.data());
    b[3 * 4096 + 5] ^= 1;
    Files.write(im.data(), b);
    try (ServerProcess server = open(im, "disk")) {
      String uri = server.line();
      for (int i = 0; i < 2; i++) {
        ToolRun copy = Clients.run("nbdcopy", uri, p("copy" + i));
        assertThat(copy.exitCode()).as("%s", copy).isNotZero();
      }
      ToolRun status =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("run").toString());
      assertThat(status.stdout()).contains("  corruptions:   ");
      List<String> corrupted =
          status.stdoutLines().stream().filter(l -> l.startsWith("  corrupted:")).toList();
      assertThat(corrupted)
          .as("%s", status)
          .singleElement()
          .asString()
          .startsWith("  corrupted:     data block 3 is corrupted (")
          .endsWith(" reads)");
    }
  }

  /**
   * Connects to the server at {@code uri}, reads its greeting, sends {@code bytes}; returns once it
   * closes.
   */
  private static void speak(String uri, byte[] bytes) throws IOException {
    URI u = URI.create(uri);
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(20_000);
      DataInputStream in = new DataInputStream(s.getInputStream());
      in.readFully(new byte[18]); // NBDMAGIC IHAVEOPT flags
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();
      while (in.read() >= 0) {
        // until the server closes
      }
    }
  }

  private static List<String> logLinesAbout(ServerProcess server, String text) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!server.stderr().contains("disconnected") && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    return server.stderr().lines().filter(l -> l.contains(text)).toList();
  }

  @Test
  void aProtocolErrorIsLoggedOnce() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    try (ServerProcess server = open(im, "disk")) {
      speak(server.line(), new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef});
      assertThat(logLinesAbout(server, "client flags 0xdeadbeef"))
          .as(server.stderr())
          .singleElement()
          .asString()
          .matches(
              "jverity: 127\\.0\\.0\\.1:[0-9]+ disconnected: protocol error: client flags 0xdeadbeef .*");
    }
  }

  @Test
  void aClientSpeakingTlsWithoutStarttlsIsToldApart() throws Exception {
    FormattedImage im = FormattedImage.create(dir, "d", 16);
    try (ServerProcess server = open(im, "disk")) {
      // The first bytes of a TLS 1.2/1.3 ClientHello record: handshake, version 3.1, length, type
      // 1.
      speak(
          server.line(),
          new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03});
      assertThat(logLinesAbout(server, "TLS"))
          .as(server.stderr())
          .singleElement()
          .asString()
          .contains(
              "disconnected: protocol error: the client sent a TLS ClientHello without STARTTLS");
    }
  }
}
