package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * Real clients reading an image whose data block 3 was changed after formatting: libnbd sees the
 * verified bytes before the block and an error at its offset (structured replies), or EIO and no
 * data (simple replies); the connection goes on; nbdcopy of the whole image fails instead of
 * copying bad bytes.
 */
class CorruptReadsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final long BAD_BLOCK = 3;

  @TempDir static Path dir;
  private static ServedImage image;

  @BeforeAll
  static void serve() throws IOException {
    image =
        ServedImage.random(
            dir,
            64,
            ReaderOptions.DEFAULTS,
            NbdEvents.NONE,
            data -> {
              try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
                f.seek(BAD_BLOCK * 4096 + 10);
                f.write(0x42 ^ f.readByte());
              }
            });
  }

  @AfterAll
  static void stop() throws IOException {
    if (image != null) {
      image.close();
    }
  }

  @Test
  @DisplayName(
      "pread_structured over the bad block: data chunk for the verified prefix, READ_ERROR at the bad block, EIO")
  void structuredReadStopsAtTheBadBlock() {
    String script =
        """
        import errno
        IMG = open(%s, 'rb').read()
        chunks = []
        def chunk(sub, offset, status, error):
            chunks.append((offset, len(sub), status, error.value,  # error: a ctypes.c_int
                           status != nbd.READ_DATA or bytes(sub) == IMG[offset:offset + len(sub)]))
            return 0
        try:
            h.pread_structured(65536, 0, chunk)
            print('RESULT OK')
        except nbd.Error as e:
            print('RESULT', errno.errorcode.get(e.errnum, e.errnum))
        data = [(o, n, ok) for o, n, s, e, ok in chunks if s == nbd.READ_DATA]
        errors = [(o, errno.errorcode.get(e, e)) for o, n, s, e, ok in chunks if s == nbd.READ_ERROR]
        print('DATA', data)
        print('ERRORS', errors)
        print('ALIVE', h.pread(4096, 8 * 4096) == IMG[8 * 4096:9 * 4096])
        """
            .formatted("'" + image.data + "'");

    List<String> out = nbdsh("-u", image.unixUri(), "-c", script);

    assertThat(out)
        .containsExactly(
            "RESULT EIO", "DATA [(0, 12288, True)]", "ERRORS [(12288, 'EIO')]", "ALIVE True");
  }

  @Test
  @DisplayName("with simple replies, a read over the bad block is EIO, and the next read works")
  void simpleReadIsEio() {
    String script =
        """
        import errno
        h = nbd.NBD()
        h.set_request_structured_replies(False)
        h.connect_uri(%s)
        try:
            h.pread(65536, 0)
            print('RESULT OK')
        except nbd.Error as e:
            print('RESULT', errno.errorcode.get(e.errnum, e.errnum))
        print('GOOD', len(h.pread(3 * 4096, 0)))
        """
            .formatted("'" + image.tcpUri() + "'");

    assertThat(nbdsh("-n", "-c", script)).containsExactly("RESULT EIO", "GOOD 12288");
  }

  @Test
  @DisplayName(
      "nbdcopy of the whole image fails with an I/O error; the server still answers nbdinfo")
  void nbdcopyFails() {
    var r = Tool.of("nbdcopy").timeout(TIMEOUT).run(image.unixUri(), "-");

    assertThat(r.exit()).as(r.toString()).isNotZero();
    assertThat(r.stderr()).as(r.toString()).contains("Input/output error");
    var info = Tool.of("nbdinfo").timeout(TIMEOUT).run("--size", image.tcpUri());
    assertThat(info.ok().out().strip()).isEqualTo(String.valueOf(64 * 4096));
  }

  private static List<String> nbdsh(String... args) {
    return Tool.of("nbdsh").timeout(TIMEOUT).check(args).out().lines().toList();
  }
}
