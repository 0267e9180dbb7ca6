package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * Thirty seconds of {@code bench/soak.sh}: two {@code serve} processes (TCP and a Unix socket,
 * exports with and without FEC) under 8 libnbd clients, clients killed mid-read and raw sockets
 * vanishing, corruption written into the data, hash and FEC files under them. The servers run from
 * this module's class path ({@code JVERITY_CP}, with bin/lib.sh's server JVM options), so no jar is
 * built under Maven. The long run's figures (heap and RSS over time) are for the note; here only
 * what must hold after 30 s on a loaded machine: no wrong byte, failures only from corruption, the
 * faults actually hit reads, and open files and threads back to the baseline once the clients left.
 */
class SoakTest {
  @TempDir Path dir;

  @Test
  void thirtySecondsOfClientsVanishingAndFilesCorruptedUnderTheServersReturnNoWrongByte()
      throws Exception {
    Tool.of("nbdsh").require(); // python3-libnbd: the clients' `import nbd`
    Path root = projectRoot();
    ToolResult r =
        Tool.of("bash")
            .in(root)
            .timeout(Duration.ofMinutes(8)) // 30 s of load; the idle collections and settling
            .env("JVERITY_CP", System.getProperty("java.class.path"))
            .env("SOAK_TMP", dir.toString())
            .env("SIZE", "32M")
            .run("bench/soak.sh", "0.5");
    String report = r.out() + "\n--- stderr ---\n" + r.stderr();
    Map<String, Double> ratio = ratios(r.out());
    r.out()
        .lines()
        .filter(l -> l.startsWith("RATIO "))
        .forEach(System.out::println); // the build log
    assertThat(ratio).as(report).containsKeys("soak_wrong_bytes", "soak_thread_growth");

    assertThat(ratio.get("soak_wrong_bytes")).as("wrong bytes; %s", report).isZero();
    assertThat(ratio.get("soak_unexpected_failures")).as("unexpected; %s", report).isZero();
    assertThat(ratio.get("soak_failures"))
        .as("every failure is EIO; %s", report)
        .isEqualTo(ratio.get("soak_failures_eio"));
    assertThat(ratio.get("soak_server_exit")).as("servers up, exit 0; %s", report).isZero();
    assertThat(ratio.get("soak_server_log_errors")).as("server logs; %s", report).isZero();
    assertThat(r.exit()).as(report).isZero();

    // The run did what it is for: many reads, some of them over corrupted blocks (failed, or
    // corrected by FEC), clients gone mid-request.
    assertThat(ratio.get("soak_requests")).as("requests; %s", report).isGreaterThan(500);
    assertThat(ratio.get("soak_failures_eio"))
        .as("reads that met corruption; %s", report)
        .isPositive();
    assertThat(ratio.get("soak_fec_corrections")).as("FEC corrections; %s", report).isPositive();
    assertThat(ratio.get("soak_clients_vanished")).as("vanished; %s", report).isPositive();

    // Back to the baseline once the clients left (soak.sh waits up to 60 s for pools to shrink).
    assertThat(ratio.get("soak_fd_growth")).as("open files; %s", report).isLessThanOrEqualTo(0);
    assertThat(ratio.get("soak_thread_growth")).as("threads; %s", report).isLessThanOrEqualTo(0);
    // The live heap (jcmd's class histogram, after a full collection), which holds the caches
    // filled meanwhile (FEC's decoded
    // rounds, 8 MiB per FEC export; the first 100 corruptions of each export): the -Xmx is 65 MiB
    // (bin/lib.sh: a 128 KiB hash block cache + 64), 4.9 MiB are live after warm-up, 10-12 MiB
    // after 30 s, 14 MiB after 10 minutes.
    assertThat(ratio.get("soak_live_heap_growth_mib")).as("live heap; %s", report).isLessThan(32);
  }

  /** The {@code RATIO name value} lines. */
  private static Map<String, Double> ratios(String out) {
    Map<String, Double> m = new HashMap<>();
    for (String line : out.lines().toList()) {
      List<String> f = List.of(line.trim().split("\\s+"));
      if (f.size() == 3 && f.get(0).equals("RATIO")) {
        m.put(f.get(1), Double.parseDouble(f.get(2)));
      }
    }
    return m;
  }

  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bench/soak.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("no bench/soak.sh above " + Path.of("").toAbsolutePath());
  }
}
