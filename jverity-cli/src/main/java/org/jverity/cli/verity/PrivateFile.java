package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Output files are created readable by their owner only (mode 0600), as veritysetup creates its
 * hash, FEC and root-hash files: a hash tree or root hash left world-readable tells others what a
 * device holds. A file that exists keeps its mode; so does a block device.
 */
final class PrivateFile {
  private PrivateFile() {}

  /** Creates {@code path} with mode 0600 unless it exists; returns it. */
  static Path create(Path path) throws IOException {
    try {
      Files.createFile(
          path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      // written over in place, mode kept (veritysetup opens an existing file without changing it)
    } catch (UnsupportedOperationException e) {
      // no POSIX permissions here (Windows): the file is created by the open that follows
    }
    return path;
  }
}
