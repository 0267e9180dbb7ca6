package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The URIs of doc/uri.md: host forms, TLS, percent-encoding of names and socket paths. */
class NbdUriTest {
  @Test
  void tcpWithAnEncodedName() throws Exception {
    var at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 10809);

    assertThat(NbdUri.tcp(at, "")).isEqualTo("nbd://127.0.0.1:10809/");
    assertThat(NbdUri.tcp(at, "a b/é~", true)).isEqualTo("nbds://127.0.0.1:10809/a%20b%2F%C3%A9~");
  }

  @Test
  void ipv6InBracketsWithoutItsZone() throws Exception {
    var at = new InetSocketAddress(InetAddress.getByName("fe80::1%1"), 5);

    assertThat(NbdUri.host(at)).isEqualTo("[fe80:0:0:0:0:0:0:1]");
    assertThat(NbdUri.tcp(at, "x")).isEqualTo("nbd://[fe80:0:0:0:0:0:0:1]:5/x");
  }

  @Test
  void unixKeepsTheSlashesOfItsPath() {
    assertThat(NbdUri.unix(Path.of("/run/j v/s.sock"), "img"))
        .isEqualTo("nbd+unix:///img?socket=/run/j%20v/s.sock");
  }
}
