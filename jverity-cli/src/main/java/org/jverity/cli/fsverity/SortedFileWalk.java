package org.jverity.cli.fsverity;

import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The regular files under a directory, in the order of their sorted paths ({@link Path#compareTo},
 * byte order, as {@code LC_ALL=C sort}), each with the size its one {@code lstat} gave. Symbolic
 * links are not followed and, like everything else that is not a regular file or a directory, not
 * listed.
 *
 * <p>The walk is depth first and holds one sorted directory listing per level, not the whole tree:
 * a directory's entries are sorted with each subdirectory placed where its paths fall among its
 * siblings, keyed by {@code name/} (every path under it starts so), which gives the same order as
 * sorting all the paths. Files are handed over as they are reached, so hashing can start at once.
 */
final class SortedFileWalk {
  /** A regular file found, with its size at the time of the walk. */
  record Found(Path path, long size) {}

  /** Receives the files in order. */
  interface Visitor {
    void file(Found f) throws Exception;
  }

  /**
   * A subdirectory's place among its siblings: the key of {@code d} is {@code d/} and the byte 1,
   * which compares with a sibling as every path under {@code d} does: no name holds a {@code /},
   * and none starts with a byte below 1 (a name holds no NUL) that could sort before the key.
   */
  private static final String BELOW_EVERY_NAME = "\u0001";

  private record Entry(Path path, Path key, BasicFileAttributes attributes)
      implements Comparable<Entry> {
    @Override
    public int compareTo(Entry other) {
      return key.compareTo(other.key);
    }
  }

  private SortedFileWalk() {}

  /**
   * Visits {@code root}'s regular files in sorted order: {@code root} itself when it is one; none
   * when it is a symbolic link or neither (as {@code Files.walk} without {@code FOLLOW_LINKS}).
   */
  static void walk(Path root, Visitor visitor) throws Exception {
    BasicFileAttributes a =
        Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (a.isDirectory()) {
      directory(root, visitor);
    } else if (a.isRegularFile()) {
      visitor.file(new Found(root, a.size()));
    }
  }

  private static void directory(Path dir, Visitor visitor) throws Exception {
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> list = Files.newDirectoryStream(dir)) {
      for (Path p : list) {
        BasicFileAttributes a =
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isDirectory()) {
          entries.add(new Entry(p, p.resolve(BELOW_EVERY_NAME), a));
        } else if (a.isRegularFile()) {
          entries.add(new Entry(p, p, a));
        }
      }
    } catch (DirectoryIteratorException e) { // a listing that failed part way: why, naming it
      throw e.getCause();
    }
    Collections.sort(entries);
    for (Entry e : entries) {
      if (e.attributes().isDirectory()) {
        directory(e.path(), visitor);
      } else {
        visitor.file(new Found(e.path(), e.attributes().size()));
      }
    }
  }
}
