package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code open --root-hash-signature --trusted-cert} and {@code serve}'s {@code root-hash-signature}
 * and {@code trusted-cert} keys: a trusted signature of the root hash serves the image (read back
 * by nbdcopy); any other refuses to start, with exit 14 and one line naming the export, before a
 * URI is printed. The signatures are openssl smime's, over the root hash as hex text.
 */
class RootHashSignatureServingTest {
  @TempDir static Path dir;
  static FormattedImage disk;
  static Path signature; // signer's signature of disk's root
  static Path otherRootSignature; // signer's signature of another root

  @BeforeAll
  static void image() throws Exception {
    Tool.of("nbdcopy").require();
    SigTools.rsa(dir, "signer");
    SigTools.rsa(dir, "other");
    disk = FormattedImage.create(dir, "disk", 100);
    Files.writeString(dir.resolve("disk.roothash"), disk.root());
    signature = SigTools.opensslSign(dir, "disk.roothash", "disk.roothash.p7s", "sha256", false);
    Files.writeString(dir.resolve("other.roothash"), "00" + disk.root().substring(2));
    otherRootSignature =
        SigTools.opensslSign(dir, "other.roothash", "other.roothash.p7s", "sha256", false);
  }

  /** {@code open} of disk on any free port, with the signature and certificates given. */
  private static HostedServer open(Path sig, String... certs) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "open",
                disk.data().toString(),
                "disk",
                disk.hash().toString(),
                disk.root(),
                "--port",
                "0",
                "--root-hash-signature=" + sig));
    for (String c : certs) {
      args.add("--trusted-cert=" + dir.resolve(c));
    }
    return HostedServer.start(dir, args.toArray(String[]::new));
  }

  /** The server exits 14 with one line about the export's signature, and printed no URI. */
  private static void assertRefused(HostedServer server, String message) throws Exception {
    assertThat(server.waitFor()).as(server.stderr()).isEqualTo(ExitCode.SIGNATURE_INVALID);
    assertThat(server.stderr().lines().toList())
        .as(server.stderr())
        .singleElement()
        .asString()
        .startsWith("jverity: export disk: root hash signature: ")
        .contains(message);
    assertThat(server.restOfStdout()).as("no URI: it never listened").isEmpty();
  }

  @Test
  void openServesAnImageWhoseRootATrustedCertificateSigned() throws Exception {
    try (HostedServer server = open(signature, "other.crt", "signer.crt")) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(disk.sha256());
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void openRefusesASignatureByAnUntrustedCertificate() throws Exception {
    try (HostedServer server = open(signature, "other.crt")) {
      assertRefused(server, "no trusted certificate");
    }
  }

  @Test
  void openRefusesASignatureOfAnotherRootOrAForgedOne() throws Exception {
    try (HostedServer server = open(otherRootSignature, "signer.crt")) {
      assertRefused(server, "does not verify");
    }
    try (HostedServer server = open(SigTools.flipped(signature, 3), "signer.crt")) {
      assertRefused(server, "does not verify");
    }
  }

  @Test
  void openTakesTheOptionsInPairs() {
    ToolRun r =
        Jverity.run(
            "open",
            disk.data().toString(),
            "disk",
            disk.hash().toString(),
            disk.root(),
            "--port",
            "0",
            "--root-hash-signature=" + signature);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.USAGE);
    assertThat(r.stderr()).isEqualTo("jverity: --root-hash-signature needs --trusted-cert\n");
    r =
        Jverity.run(
            "open",
            disk.data().toString(),
            "disk",
            disk.hash().toString(),
            disk.root(),
            "--port",
            "0",
            "--trusted-cert=" + dir.resolve("signer.crt"));
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.USAGE);
    assertThat(r.stderr()).isEqualTo("jverity: --trusted-cert needs --root-hash-signature\n");
    assertThat(r.stdout()).isEmpty();
  }

  /** A config serving {@code plain} (unsigned) and {@code disk} with these signature keys. */
  private static Path config(String name, String signatureKeys) throws Exception {
    return Files.writeString(
        dir.resolve(name),
        """
        [generic]
        port = 0

        [plain]
        data = disk.img
        hash = disk.hash
        root-hash = %s

        [disk]
        data = disk.img
        hash = disk.hash
        root-hash-file = disk.roothash
        %s
        """
            .formatted(disk.root(), signatureKeys));
  }

  @Test
  void serveServesAnExportWhoseRootATrustedCertificateSigned() throws Exception {
    Path conf =
        config("good.conf", "root-hash-signature = disk.roothash.p7s\ntrusted-cert = signer.crt\n");
    try (HostedServer server = HostedServer.start(dir, "serve", conf.toString())) {
      String plain = server.line();
      String signed = server.line();
      assertThat(signed).endsWith("/disk");
      assertThat(NbdClients.sha256OfCopy(signed)).isEqualTo(disk.sha256());
      assertThat(NbdClients.sha256OfCopy(plain)).isEqualTo(disk.sha256());
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void serveRefusesToStartWhenOneExportsRootIsNotSignedByATrustedCertificate() throws Exception {
    Path untrusted =
        config(
            "untrusted.conf",
            "root-hash-signature = disk.roothash.p7s\ntrusted-cert = other.crt\n");
    try (HostedServer server = HostedServer.start(dir, "serve", untrusted.toString())) {
      assertRefused(server, "no trusted certificate");
    }
    Path otherRoot =
        config(
            "other-root.conf",
            "root-hash-signature = other.roothash.p7s\ntrusted-cert = signer.crt\n");
    try (HostedServer server = HostedServer.start(dir, "serve", otherRoot.toString())) {
      assertRefused(server, "does not verify");
    }
    assertThat(dir.resolve("run/plain.ctl"))
        .as("no status socket: nothing was served")
        .doesNotExist();
  }
}
