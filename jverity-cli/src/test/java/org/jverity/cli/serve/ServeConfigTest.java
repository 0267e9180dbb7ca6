package org.jverity.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.syntax.IoClassName;
import org.jverity.server.Endpoint;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportRoot;
import org.jverity.server.TlsMode;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/** {@code serve}'s config file: what it reads, and its one-line errors naming file:line and key. */
class ServeConfigTest {
  @TempDir Path dir;
  private FormattedImage image;

  @BeforeEach
  void image() throws Exception {
    image = FormattedImage.create(dir, "disk", 8);
  }

  private Path config(String text) throws Exception {
    return Files.writeString(dir.resolve("serve.conf"), text);
  }

  private String export(String extra) {
    return "[disk]\ndata = disk.img\nhash = disk.hash\nroot-hash = " + image.root() + "\n" + extra;
  }

  @Test
  void readsGenericSettingsAndExportsWithPathsRelativeToTheFile() throws Exception {
    Path conf =
        config(
            """
        [generic]
        port = 0
        cache-size = 16M
        max-connections = 8
        idle-timeout = 90s
        """
                + export(
                    """
        description = the disk
        io-class = idle
        hash-offset = 0
        ignore-zero-blocks = yes
        restart-on-corruption = true
        """));
    ServeConfig c =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null);
    assertThat(c.listening().port()).isZero();
    assertThat(c.listening().cacheSize()).isEqualTo(16 << 20);
    assertThat(c.listening().limits().maxConnections()).isEqualTo(8);
    assertThat(c.listening().limits().idleTimeout()).hasSeconds(90);
    ExportConfig e = c.exports().getFirst();
    assertThat(e.name()).isEqualTo("disk");
    assertThat(e.data()).isEqualTo(dir.resolve("disk.img").toString()); // a location: path or URL
    assertThat(e.description()).isEqualTo("the disk");
    assertThat(e.ioClass()).isEqualTo(IoClass.IDLE);
    assertThat(given(e).overrides().hashOffset()).isZero();
    assertThat(e.ignoreZeroBlocks()).isTrue();
    assertThat(e.mode()).isEqualTo(CorruptionMode.RESTART);
  }

  private ToolRun serve(String text) throws Exception {
    return Jverity.run(
        "serve", config(text).toString(), "--runtime-dir", dir.resolve("run").toString());
  }

  private void refused(String text, int code, String message) throws Exception {
    ToolRun r = serve(text);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(code);
    assertThat(r.stderrLines())
        .as(r.toString())
        .containsExactly("jverity: " + dir.resolve("serve.conf") + message);
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  void refusesAPortOutOfRange() throws Exception {
    refused(
        "[generic]\nport = 70000\n" + export(""),
        3,
        ":2: port: 70000 (expected: a port from 0 (any free port) to 65535)");
  }

  @Test
  void refusesAnUnknownKeyNamingTheKnownOnes() throws Exception {
    ToolRun r = serve(export("hash-ofset = 4096\n"));
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.stderrLines())
        .singleElement()
        .asString()
        .startsWith(
            "jverity: "
                + dir.resolve("serve.conf")
                + ":5: hash-ofset: unknown key in [disk] (expected: one of ")
        .contains("hash-offset");
  }

  @Test
  void refusesAMissingDataAndAMissingRootHash() throws Exception {
    refused(
        "[disk]\nhash = disk.hash\nroot-hash = 00\n",
        3,
        ":1: [disk]: data: missing (expected: the data image's path)");
    refused(
        "[disk]\ndata = disk.img\nhash = disk.hash\n",
        3,
        ":1: [disk]: root-hash or root-hash-file: neither given (expected: exactly one)");
  }

  @Test
  void refusesBadValuesOfFlagsSizesAndClasses() throws Exception {
    refused(
        export("no-superblock = maybe\n"), 3, ":5: no-superblock: maybe (expected: true or false)");
    refused(
        "[generic]\ncache-size = 1X\n" + export(""),
        3,
        ":2: cache-size: 1X (expected: " + ByteSize.EXPECTED + ")");
    refused(
        export("io-class = fast\n"),
        3,
        ":5: io-class: fast (expected: " + IoClassName.EXPECTED + ")");
    refused(
        "[generic]\nmax-connections = 0\n" + export(""),
        3,
        ":2: max-connections: 0 (expected: 1 to 2147483647)");
  }

  @Test
  void refusesWhatOpenRefusesInOpensWordsAtTheKeysLine() throws Exception {
    refused(
        "[generic]\nport = 0\nmax-in-flight = 0\n" + export(""),
        3,
        ":3: max-in-flight: 0 (expected: 1 to 2147483647)");
    refused(
        "[generic]\nmetrics-port = 70000\n" + export(""),
        3,
        ":2: metrics-port: 70000 (expected: 0 to 65535)");
    refused(
        "[generic]\ntls-verify-peer = on\n" + export(""),
        3,
        ":1: tls-certificates and tls-verify-peer need tls on or require");
    refused(
        "[generic]\ncache-size = 0\n" + export(""),
        3,
        ":2: cache-size: 0 (expected: at least 1 byte)");
    refused(
        export("ignore-zero-blocks = maybe\n"),
        3,
        ":5: ignore-zero-blocks: maybe (expected: true or false)");
    refused(export("fec-offset = x\n"), 3, ":5: fec-offset: x (expected: a whole number)");
  }

  @Test
  void readsOpensUuidAndAFalseFlag() throws Exception {
    Path conf =
        config(export("uuid = 00000000-0000-0000-0000-000000000000\nno-superblock = off\n"));
    ExportConfig e =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null)
            .exports()
            .getFirst();
    assertThat(given(e).overrides().uuid()).isEqualTo("00000000-0000-0000-0000-000000000000");
    assertThat(given(e).overrides().noSuperblock()).isFalse();
  }

  @Test
  void refusesTwoCorruptionModes() throws Exception {
    refused(
        export("ignore-corruption = true\npanic-on-corruption = true\n"),
        3,
        ":5: ignore-corruption, restart-on-corruption and panic-on-corruption: 2 given (expected: at most one)");
  }

  @Test
  void refusesErrorAsCorruptionWithoutAModeThatStops() throws Exception {
    refused(
        export("error-as-corruption = true\n"),
        3,
        ":5: error-as-corruption without restart-on-corruption or panic-on-corruption"
            + " (expected: one of them too)");
  }

  @Test
  void readsErrorAsCorruptionWithPanicOnCorruption() throws Exception {
    Path conf = config(export("panic-on-corruption = true\nerror-as-corruption = true\n"));
    ExportConfig e =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null)
            .exports()
            .getFirst();
    assertThat(e.mode()).isEqualTo(CorruptionMode.PANIC);
    assertThat(e.errorAsCorruption()).isTrue();
  }

  @Test
  void readsTheRootHashSignatureKeysRelativeToTheFile() throws Exception {
    Files.createFile(dir.resolve("disk.p7s"));
    Files.createDirectories(dir.resolve("certs"));
    Files.createFile(dir.resolve("certs/trusted.pem"));
    Path conf =
        config(export("root-hash-signature = disk.p7s\ntrusted-cert = certs/trusted.pem\n"));
    ExportConfig e =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null)
            .exports()
            .getFirst();
    assertThat(e.signature().signature()).isEqualTo(dir.resolve("disk.p7s"));
    assertThat(e.signature().trusted()).containsExactly(dir.resolve("certs/trusted.pem"));
    Path plain = config(export(""));
    assertThat(
            ServeConfig.read(IniFile.parse(plain.toString(), Files.readString(plain)), dir, null)
                .exports()
                .getFirst()
                .signature())
        .isNull();
  }

  @Test
  void refusesASignatureWithoutTrustedCertificatesAndTheReverse() throws Exception {
    refused(
        export("root-hash-signature = disk.p7s\n"),
        3,
        ":5: root-hash-signature: given without trusted-cert (expected: trusted-cert too)");
    refused(
        export("trusted-cert = signer.crt\n"),
        3,
        ":5: trusted-cert: given without root-hash-signature (expected: root-hash-signature too)");
  }

  @Test
  void refusesAConfigWithoutExports() throws Exception {
    refused(
        "[generic]\nport = 1\n",
        3,
        ": no export (expected: at least one [name] section besides [generic])");
  }

  @Test
  void aMissingDataFileIsAnIoError() throws Exception {
    ToolRun r =
        serve("[disk]\ndata = nope.img\nhash = disk.hash\nroot-hash = " + image.root() + "\n");
    assertThat(r.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines())
        .containsExactly(
            "jverity: "
                + dir.resolve("serve.conf")
                + ":2: [disk] data: "
                + dir.resolve("nope.img")
                + ": data file does not exist");
  }

  @Test
  void aMissingHashOrFecFileNamesTheLineAndKeyThatNamedIt() throws Exception {
    ToolRun hash =
        serve("[disk]\ndata = disk.img\nhash = nope.hash\nroot-hash = " + image.root() + "\n");
    assertThat(hash.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(hash.stderrLines())
        .containsExactly(
            "jverity: "
                + dir.resolve("serve.conf")
                + ":3: [disk] hash: "
                + dir.resolve("nope.hash")
                + ": hash file does not exist");
    ToolRun fec = serve(export("fec-device = nope.fec\n"));
    assertThat(fec.exitCode()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(fec.stderrLines())
        .containsExactly(
            "jverity: "
                + dir.resolve("serve.conf")
                + ":5: [disk] fec-device: "
                + dir.resolve("nope.fec")
                + ": FEC file does not exist");
    ToolRun rootFile =
        serve("[disk]\ndata = disk.img\nhash = disk.hash\nroot-hash-file = nope.txt\n");
    assertThat(rootFile.stderrLines())
        .containsExactly(
            "jverity: "
                + dir.resolve("serve.conf")
                + ":4: [disk] root-hash-file: "
                + dir.resolve("nope.txt")
                + ": root hash file does not exist");
  }

  @Test
  void aByteOrderMarkAtTheStartIsNotPartOfTheFirstSection() throws Exception {
    Path conf = config("\ufeff[generic]\nport = 0\n" + export(""));
    ServeConfig c =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null);
    assertThat(c.listening().port()).isZero();
    assertThat(c.exports()).extracting(ExportConfig::name).containsExactly("disk");
  }

  @Test
  void readsTlsAndMetricsKeysAndRefusesWhatCannotWork() throws Exception {
    Path conf =
        config(
            """
        [generic]
        tls = require
        tls-certificates = pki
        tls-verify-peer = true
        metrics-port = 9100
        metrics-bind = 0.0.0.0
        """
                + export(""));
    Endpoint endpoint =
        ServeConfig.read(IniFile.parse(conf.toString(), Files.readString(conf)), dir, null)
            .listening();
    assertThat(endpoint.tls().mode()).isEqualTo(TlsMode.REQUIRE);
    assertThat(endpoint.tls().certificates()).isEqualTo(dir.resolve("pki"));
    assertThat(endpoint.tls().verifyPeer()).isTrue();
    assertThat(endpoint.metrics().port()).isEqualTo(9100);
    assertThat(endpoint.metrics().bind()).isEqualTo("0.0.0.0");

    Path bad = config("[generic]\ntls = sometimes\n" + export(""));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ServeConfig.read(IniFile.parse(bad.toString(), Files.readString(bad)), dir, null))
        .isInstanceOfSatisfying(
            CliException.class,
            e ->
                assertThat(e.getMessage())
                    .startsWith(bad + ":2: tls: sometimes (expected: off, on or require)"));
    Path unix = config("[generic]\nsocket = s.sock\ntls = require\n" + export(""));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                ServeConfig.read(IniFile.parse(unix.toString(), Files.readString(unix)), dir, null))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("tls: require");
  }

  /** The root a section with hash and root-hash gives: as text, resolved when opened. */
  private static ExportRoot.Given given(ExportConfig e) {
    assertThat(e.root()).isInstanceOf(ExportRoot.Given.class);
    return (ExportRoot.Given) e.root();
  }
}
