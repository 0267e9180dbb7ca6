package org.jverity.cli.fsverity;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.FsVerityTreeBuilder;
import org.jverity.io.FileDevice;

/**
 * The fs-verity file digest of a file, as {@code fsverity digest} prints it, for {@code sign} and
 * {@code verify-sig}: the core's parallel tree builder, root only. Stateless.
 */
final class FsVerityFileDigest {
  private FsVerityFileDigest() {}

  static byte[] compute(Path file, FsVerityParams params) throws IOException {
    // One-shot: a FileChannel device opens at once; nothing interrupts this command.
    try (FileDevice in = FileDevice.openChannel(file, false)) {
      return FsVerityTreeBuilder.of(params).digest(in).digest();
    }
  }
}
