package org.jverity.ddi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jverity.sig.Pem;

/**
 * The certificates a DDI's signature is checked against in userspace, found as systemd finds them:
 * every {@code *.crt} in the {@code verity.d} directories, in order, and nothing else: a {@code
 * .pem} there is ignored (systemd#41790), and {@link #ignored} says so rather than leave a user to
 * wonder. Immutable.
 *
 * @param certificates each certificate with the file it came from
 * @param ignored files in the directories that systemd ignores, one line each
 */
public record TrustedCertificates(List<Trusted> certificates, List<String> ignored) {

  /** systemd's {@code verity.d} directories, in its order of precedence. */
  public static final List<Path> SYSTEM_DIRS =
      List.of(
          Path.of("/etc/verity.d"),
          Path.of("/run/verity.d"),
          Path.of("/usr/local/lib/verity.d"),
          Path.of("/usr/lib/verity.d"));

  /** The suffix systemd reads. */
  public static final String SUFFIX = ".crt";

  /** A certificate and the file that holds it. */
  public record Trusted(Path file, X509Certificate certificate) {
    public Trusted {
      Objects.requireNonNull(file, "file");
      Objects.requireNonNull(certificate, "certificate");
    }
  }

  public TrustedCertificates {
    certificates = List.copyOf(certificates);
    ignored = List.copyOf(ignored);
  }

  /** The certificates alone, for the signature check. */
  public List<X509Certificate> x509() {
    return certificates.stream().map(Trusted::certificate).toList();
  }

  /** The file {@code cert} came from. */
  public Path fileOf(X509Certificate cert) {
    return certificates.stream()
        .filter(t -> t.certificate().equals(cert))
        .findFirst()
        .map(Trusted::file)
        .orElseThrow();
  }

  /**
   * Every {@code *.crt} of {@code dirs}, each directory's files in name order; a directory that
   * does not exist is skipped, as systemd skips it.
   *
   * @throws IOException naming the file, when a {@code .crt} holds no certificate
   */
  public static TrustedCertificates in(List<Path> dirs) throws IOException {
    List<Trusted> certs = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    for (Path dir : dirs) {
      List<Path> files = new ArrayList<>();
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
        s.forEach(files::add);
      } catch (NoSuchFileException e) {
        continue;
      }
      files.sort(null);
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (name.endsWith(SUFFIX) && Files.isRegularFile(f)) {
          for (X509Certificate c : Pem.readCertificates(f)) {
            certs.add(new Trusted(f, c));
          }
        } else if (Files.isRegularFile(f)) {
          ignored.add(f + ": ignored (systemd reads only *" + SUFFIX + " in " + dir + ")");
        }
      }
    }
    return new TrustedCertificates(certs, ignored);
  }
}
