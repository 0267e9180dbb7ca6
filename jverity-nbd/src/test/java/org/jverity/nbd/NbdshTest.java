package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * The server driven by libnbd's Python shell, {@code nbdsh} (python3-libnbd): the error table of
 * NBD.md §6.4 (with libnbd's strict mode off, so that bad requests reach the server), option mode,
 * block sizes, structured reads, a 32 MiB read and 64 reads in flight. Every script checks the
 * bytes it gets against the image file. The image is 8,200 blocks (32 MiB + 32 KiB).
 */
class NbdshTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static ServedImage image;

  @BeforeAll
  static void serve() throws IOException {
    image = ServedImage.random(dir, 8200, ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true));
  }

  @AfterAll
  static void stop() throws IOException {
    if (image != null) {
      image.close();
    }
  }

  /** Runs nbdsh with these arguments; its standard output, as lines. */
  private static List<String> nbdsh(String... args) {
    return Tool.of("nbdsh").timeout(TIMEOUT).check(args).out().lines().toList();
  }

  /** Python that sets {@code IMG} to the image's bytes. */
  private static String readImage() {
    return "IMG = open(%s, 'rb').read()".formatted(python(image.data.toString()));
  }

  private static String python(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  @ParameterizedTest(name = "{0} -> {2} (structured replies: {3})")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      pwrite             | h.pwrite(b'x' * 512, 0)                | EPERM  | true
      trim               | h.trim(512, 0)                         | EPERM  | true
      zero               | h.zero(512, 0)                         | EPERM  | true
      pread past end     | h.pread(512, h.get_size())             | EINVAL | true
      pread across end   | h.pread(8192, h.get_size() - 4096)     | EINVAL | true
      pread length 0     | h.pread(0, 0)                          | EINVAL | true
      pread unknown flag | h.pread(512, 0, 0x80)                  | EINVAL | true
      cache              | h.cache(512, 0)                        | OK     | true
      flush              | h.flush()                              | OK     | true
      pwrite             | h.pwrite(b'x' * 512, 0)                | EPERM  | false
      trim               | h.trim(512, 0)                         | EPERM  | false
      zero               | h.zero(512, 0)                         | EPERM  | false
      pread past end     | h.pread(512, h.get_size())             | EINVAL | false
      pread across end   | h.pread(8192, h.get_size() - 4096)     | EINVAL | false
      pread length 0     | h.pread(0, 0)                          | EINVAL | false
      pread unknown flag | h.pread(512, 0, 0x80)                  | EINVAL | false
      cache              | h.cache(512, 0)                        | OK     | false
      flush              | h.flush()                              | OK     | false
      """)
  @DisplayName("the error table of NBD.md §6.4; the connection goes on after each error")
  void errorTable(String what, String call, String expected, boolean structured) {
    String script =
        """
        import errno
        h = nbd.NBD()
        h.set_request_structured_replies(%s)
        h.connect_uri(%s)
        h.set_strict_mode(0)
        try:
            %s
            print('RESULT OK')
        except nbd.Error as e:
            print('RESULT', errno.errorcode.get(e.errnum, e.errnum))
        print('STRUCTURED', h.get_structured_replies_negotiated())
        print('ALIVE', h.pread(4096, 8192) == IMG[8192:12288])
        """
            .formatted(structured ? "True" : "False", python(image.unixUri()), call);

    List<String> out = nbdsh("-n", "-c", readImage(), "-c", script);

    assertThat(out)
        .as(what)
        .containsExactly(
            "RESULT " + expected, "STRUCTURED " + (structured ? "True" : "False"), "ALIVE True");
  }

  @Test
  @DisplayName(
      "option mode: opt_list shows the export, opt_info reports it, then opt_go enters transmission")
  void optionMode() {
    String script =
        """
        exports = []
        h.opt_list(lambda name, description: exports.append((name, description)))
        print('LIST', exports)
        h.opt_info()
        print('INFO', h.get_size(), h.is_read_only(), h.can_multi_conn(), h.aio_is_negotiating())
        h.add_meta_context('base:allocation')
        h.opt_go()
        print('GO', h.get_size(), h.aio_is_ready(), h.can_meta_context('base:allocation'))
        print('READ', h.pread(65536, 4096) == IMG[4096:69632])
        extents = []
        h.block_status(65536, 0, lambda context, offset, entries, error: extents.append((context, entries)) or 0)
        print('STATUS', extents)
        """;

    List<String> out = nbdsh("--opt-mode", "-u", image.unixUri(), "-c", readImage(), "-c", script);

    long size = 8200L * 4096;
    assertThat(out)
        .containsExactly(
            "LIST [('', 'test image')]",
            "INFO " + size + " True True True",
            "GO " + size + " True True",
            "READ True",
            "STATUS [('base:allocation', [20480, 0, 4096, 3, 40960, 0])]"); // block 5 is the first
    // zero one
  }

  @Test
  @DisplayName("get_block_size: minimum 1, preferred 4096 (the data block), maximum 32 MiB")
  void blockSizes() {
    List<String> out =
        nbdsh(
            "-u",
            image.tcpUri(),
            "-c",
            "print(h.get_block_size(nbd.SIZE_MINIMUM), "
                + "h.get_block_size(nbd.SIZE_PREFERRED), h.get_block_size(nbd.SIZE_MAXIMUM))");

    assertThat(out).containsExactly("1 4096 33554432");
  }

  @Test
  @DisplayName(
      "pread_structured returns OFFSET_DATA chunks that tile the range and hold the image's bytes")
  void preadStructured() {
    String script =
        """
        chunks = []
        def chunk(sub, offset, status, error):
            chunks.append((offset, len(sub), status, bytes(sub) == IMG[offset:offset + len(sub)]))
            return 0
        start, count = 4096 * 3 + 512, 3 * 1048576 + 1000
        buf = h.pread_structured(count, start, chunk)
        print('WHOLE', bytes(buf) == IMG[start:start + count])
        print('STATUS', sorted(set(c[2] for c in chunks)) == [nbd.READ_DATA])
        print('MATCH', all(c[3] for c in chunks))
        chunks.sort()
        print('TILED', chunks[0][0] == start and sum(c[1] for c in chunks) == count
              and all(a[0] + a[1] == b[0] for a, b in zip(chunks, chunks[1:])))
        print('CHUNKS', len(chunks))
        buf = h.pread_structured(65536, 8192, chunk, nbd.CMD_FLAG_DF)
        print('DF', bytes(buf) == IMG[8192:8192 + 65536], len(chunks))
        """;

    List<String> out = nbdsh("-u", image.unixUri(), "-c", readImage(), "-c", script);

    assertThat(out).startsWith("WHOLE True", "STATUS True", "MATCH True", "TILED True");
    int chunks = Integer.parseInt(out.get(4).substring("CHUNKS ".length()));
    assertThat(chunks).as("a 3 MiB read comes in several chunks").isGreaterThan(1);
    assertThat(out.get(5)).as("with DF, one chunk more").isEqualTo("DF True " + (chunks + 1));
  }

  @Test
  @DisplayName(
      "a 32 MiB read (the advertised maximum) returns the image's bytes, with and without structured replies")
  void maximumRead() {
    String script =
        """
        for sr in (True, False):
            g = nbd.NBD()
            g.set_request_structured_replies(sr)
            g.connect_uri(%s)
            print(sr, g.pread(32 * 1048576, 4096) == IMG[4096:4096 + 32 * 1048576])
            g.shutdown()
        """
            .formatted(python(image.tcpUri()));

    assertThat(nbdsh("-n", "-c", readImage(), "-c", script))
        .containsExactly("True True", "False True");
  }

  @Test
  @DisplayName(
      "a 32 MiB read with DF (one chunk, the whole read-buffer budget) returns, on the reading thread or not")
  void maximumReadInOneChunk() {
    String script =
        """
        chunks = []
        def chunk(sub, offset, status, error):
            chunks.append(len(sub))
            return 0
        n = 32 * 1048576
        buf = h.pread_structured(n, 4096, chunk, nbd.CMD_FLAG_DF)
        print('DF', bytes(buf) == IMG[4096:4096 + n], chunks == [n])
        c = h.aio_pread_structured(nbd.Buffer(n), 0, lambda *a: 0, flags=nbd.CMD_FLAG_DF)
        d = h.aio_pread(nbd.Buffer(4096), 0)
        while h.aio_in_flight() > 0:
            h.poll(-1)
        print('QUEUED', h.aio_command_completed(c), h.aio_command_completed(d))
        """;

    assertThat(nbdsh("-u", image.unixUri(), "-c", readImage(), "-c", script))
        .containsExactly("DF True True", "QUEUED True True");
  }

  @Test
  @DisplayName(
      "64 aio_preads in flight at once (a 32 MiB one first) all return the image's bytes, out of order")
  void manyReadsInFlight() {
    String script =
        """
        import random
        r = random.Random(7)
        order, reqs = [], []
        for i in range(64):
            n = 32 * 1048576 if i == 0 else 4096 * r.randint(1, 16)
            off = 0 if i == 0 else r.randrange(0, len(IMG) - n)
            buf = nbd.Buffer(n)
            cookie = h.aio_pread(buf, off, lambda err, i=i: order.append(i) or 0)
            reqs.append((cookie, buf, off, n))
        print('IN_FLIGHT', h.aio_in_flight())
        while h.aio_in_flight() > 0:
            h.poll(-1)
        print('CORRECT', sum(1 for c, buf, off, n in reqs
                             if h.aio_command_completed(c) and buf.to_bytearray() == IMG[off:off + n]))
        print('COMPLETED', len(order))
        print('OUT_OF_ORDER', order != sorted(order), order)
        """;

    List<String> out = nbdsh("-u", image.unixUri(), "-c", readImage(), "-c", script);

    assertThat(out.get(0)).isEqualTo("IN_FLIGHT 64");
    assertThat(out.get(1)).isEqualTo("CORRECT 64");
    assertThat(out.get(2)).isEqualTo("COMPLETED 64");
    assertThat(out.get(3))
        .as("the 32 MiB read, sent first, is not answered first")
        .startsWith("OUT_OF_ORDER True");
  }
}
