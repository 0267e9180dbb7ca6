package org.jverity.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jverity.testkit.Tool;

/**
 * A test PKI made with certtool, with the steps of nbdkit's {@code tests/make-pki.sh}: a CA, a
 * server certificate for localhost and 127.0.0.1, and a client certificate, laid out as nbdkit
 * ({@code --tls-certificates}) and libnbd ({@code tls-certificates=}) expect.
 *
 * @param server ca-cert.pem, server-cert.pem, server-key.pem (and ca-key.pem)
 * @param client ca-cert.pem, client-cert.pem, client-key.pem
 * @param clientWithoutCert ca-cert.pem only: verifies the server, presents nothing
 */
record Pki(Path server, Path client, Path clientWithoutCert) {
  /** With certtool's default keys (RSA; certificates signed with RSA PKCS#1 v1.5). */
  static Pki make(Path dir) throws IOException, InterruptedException {
    return make(dir, "rsa");
  }

  /** With keys of {@code keyType} (certtool's {@code --key-type}: rsa, ecdsa, ...). */
  static Pki make(Path dir, String keyType) throws IOException, InterruptedException {
    Tool.of("certtool").require();
    Path server = Files.createDirectories(dir.resolve("pki"));
    Path client = Files.createDirectories(dir.resolve("client"));
    Path bare = Files.createDirectories(dir.resolve("client-nocert"));
    Files.writeString(
        dir.resolve("ca.info"),
        """
        cn = Test CA
        ca
        cert_signing_key
        """);
    Files.writeString(
        dir.resolve("server.info"),
        """
        organization = Test
        cn = localhost
        dns_name = localhost
        ip_address = 127.0.0.1
        ip_address = ::1
        tls_www_server
        encryption_key
        signing_key
        """);
    Files.writeString(
        dir.resolve("client.info"),
        """
        country = US
        state = New York
        locality = New York
        organization = Test
        cn = localhost
        tls_www_client
        encryption_key
        signing_key
        """);
    Tool.of("bash")
        .in(dir)
        .timeout(Duration.ofSeconds(60))
        .check(
            "-e",
            "-c",
            "KEY_TYPE="
                + keyType
                + "\n"
                + """
        certtool --generate-privkey --key-type=$KEY_TYPE --outfile pki/ca-key.pem
        certtool --generate-self-signed --load-privkey pki/ca-key.pem --template ca.info \
          --outfile pki/ca-cert.pem
        certtool --generate-privkey --key-type=$KEY_TYPE --outfile pki/server-key.pem
        certtool --generate-certificate --load-ca-certificate pki/ca-cert.pem \
          --load-ca-privkey pki/ca-key.pem --load-privkey pki/server-key.pem \
          --template server.info --outfile pki/server-cert.pem
        certtool --generate-privkey --key-type=$KEY_TYPE --outfile client/client-key.pem
        certtool --generate-certificate --load-ca-certificate pki/ca-cert.pem \
          --load-ca-privkey pki/ca-key.pem --load-privkey client/client-key.pem \
          --template client.info --outfile client/client-cert.pem
        cp pki/ca-cert.pem client/ca-cert.pem
        cp pki/ca-cert.pem client-nocert/ca-cert.pem
        """);
    return new Pki(server, client, bare);
  }
}
