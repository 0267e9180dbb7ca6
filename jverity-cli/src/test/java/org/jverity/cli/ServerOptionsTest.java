package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.IoClassName;
import org.jverity.cli.syntax.Port;
import org.jverity.cli.syntax.TimeSpan;

/**
 * {@code open}'s option errors, run in-process (each fails before serving): one line on stderr,
 * nothing on stdout, a distinct exit code.
 */
class ServerOptionsTest {
  @TempDir Path dir;
  private FormattedImage image;

  @BeforeEach
  void image() throws Exception {
    image = FormattedImage.create(dir, "disk", 8);
  }

  private ToolRun open(String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "open",
                image.data().toString(),
                "disk",
                image.hash().toString(),
                image.root(),
                "--runtime-dir",
                dir.resolve("run").toString()));
    args.addAll(List.of(options));
    return Jverity.run(args);
  }

  private static void refused(ToolRun r, int code, String line) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(code);
    assertThat(r.stderrLines()).as(r.toString()).containsExactly(line);
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  void aPortOutOfRangeIsAnInvalidParameter() {
    refused(open("--port", "65536"), 3, "jverity: --port: 65536 (expected: " + Port.EXPECTED + ")");
    refused(open("--port", "http"), 3, "jverity: --port: http (expected: " + Port.EXPECTED + ")");
  }

  @Test
  void aSocketInAMissingDirectoryIsAnInvalidParameter() {
    Path socket = dir.resolve("no/such/dir/nbd.sock");
    refused(
        open("--socket", socket.toString()),
        3,
        "jverity: --socket: " + socket + " (expected: a path in an existing directory)");
  }

  @Test
  void aPortInUseIsAnIoError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      ToolRun r = open("--port", Integer.toString(taken.getLocalPort()));
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.IO_ERROR);
      assertThat(r.stderrLines())
          .singleElement()
          .asString()
          .startsWith(
              "jverity: --bind 127.0.0.1 --port " + taken.getLocalPort() + ": cannot listen: ");
    }
  }

  @Test
  void anAddressThatDoesNotResolveIsAnInvalidParameter() {
    refused(
        open("--bind", "no-such-host.invalid"),
        3,
        "jverity: --bind: no-such-host.invalid (expected: an IP address or a host name that resolves)");
  }

  @Test
  void conflictingOptionsAreUsageErrors() {
    refused(
        open("--stdin", "--port", "0"),
        2,
        "jverity: --stdin serves stdin: give no --socket, --port or --bind");
    refused(
        open("--socket", dir.resolve("s").toString(), "--port", "0"),
        2,
        "jverity: --socket listens on a Unix socket: give no --port or --bind");
    refused(
        open("--ignore-corruption", "--restart-on-corruption"),
        2,
        "jverity: --ignore-corruption, --restart-on-corruption and --panic-on-corruption: 2 given (expected: at most one)");
  }

  @Test
  void errorAsCorruptionWithoutAModeThatStopsIsAUsageError() {
    refused(
        open("--error-as-corruption"),
        2,
        "jverity: --error-as-corruption without --restart-on-corruption or"
            + " --panic-on-corruption (expected: one of them too)");
    refused(
        open("--ignore-corruption", "--error-as-corruption"),
        2,
        "jverity: --error-as-corruption without --restart-on-corruption or"
            + " --panic-on-corruption (expected: one of them too)");
  }

  @Test
  void badValuesOfServerOptionsAreInvalidParameters() {
    refused(
        open("--io-class", "fast"),
        3,
        "jverity: --io-class: fast (expected: " + IoClassName.EXPECTED + ")");
    refused(
        open("--idle-timeout", "1d"),
        3,
        "jverity: --idle-timeout: 1d (expected: " + TimeSpan.EXPECTED + ")");
    refused(
        open("--max-connections", "0"),
        3,
        "jverity: --max-connections: 0 (expected: 1 to 2147483647)");
    refused(open("--cache-size", "0"), 3, "jverity: --cache-size: 0 (expected: at least 1 byte)");
  }

  @Test
  void aWrongRootHashIsRefusedBeforeServing() {
    ToolRun r =
        Jverity.run(
            "open",
            image.data().toString(),
            "disk",
            image.hash().toString(),
            "abcd",
            "--runtime-dir",
            dir.resolve("run").toString());
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).hasSize(1);
  }

  @Test
  void statusOfAnExportNobodyServesIsInactive() {
    ToolRun r = Jverity.run("status", "nobody", "--runtime-dir", dir.resolve("run").toString());
    refused(
        r,
        ExitCode.INACTIVE,
        "jverity: nobody is inactive (no server answers at " + dir.resolve("run/nobody.ctl") + ")");
  }
}
