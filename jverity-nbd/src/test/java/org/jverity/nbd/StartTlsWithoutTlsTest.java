package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.verify.ReaderOptions;

/**
 * A server without TLS answers {@code NBD_OPT_STARTTLS} with {@code NBD_REP_ERR_POLICY}, as nbdkit
 * does (the protocol's half of TLS; jverity-server's X509TlsClientsTest holds the certificates').
 */
class StartTlsWithoutTlsTest {
  @TempDir Path dir;

  @Test
  void startTlsWithoutTlsConfiguredGetsErrPolicy() throws Exception {
    try (ServedImage plain = ServedImage.random(dir, 64, ReaderOptions.DEFAULTS)) {
      try (Socket s = new Socket("127.0.0.1", plain.address.getPort())) {
        s.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        assertThat(in.readLong()).isEqualTo(Nbd.NBDMAGIC);
        assertThat(in.readLong()).isEqualTo(Nbd.IHAVEOPT);
        in.readUnsignedShort(); // handshake flags
        out.writeInt(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
        out.writeLong(Nbd.IHAVEOPT);
        out.writeInt(NbdOption.STARTTLS.wire);
        out.writeInt(0);
        out.flush();
        assertThat(in.readLong()).isEqualTo(Nbd.OPTION_REPLY_MAGIC);
        assertThat(in.readInt()).isEqualTo(NbdOption.STARTTLS.wire);
        assertThat(in.readInt()).isEqualTo(Nbd.REP_ERR_POLICY);
      }
    }
  }
}
