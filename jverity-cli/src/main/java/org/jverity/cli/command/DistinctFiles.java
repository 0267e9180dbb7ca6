package org.jverity.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jverity.io.SameFile;

/**
 * Refuses, before anything is opened for writing, an output that is the same file as an input or as
 * another output: {@code read d.img d.hash ROOT -o d.img} would otherwise truncate the data it is
 * reading, and {@code sign FILE FILE} the file it signs. "The same file" is the same device and
 * inode, so a symbolic link, a hard link or a path spelt another way is caught; two device nodes of
 * one block device are caught by their device number. An output that does not exist yet can only be
 * the same as another output, by its resolved name.
 *
 * <p>Layouts where one file legitimately holds two areas (hash or FEC after the data, with offsets)
 * are the geometry's to check, not this class's: it is given only the files that must differ.
 */
public final class DistinctFiles {
  /** A file and the role the command gives it, as the message names it ("data", "--output"). */
  record Role(String name, Path path) {}

  /** File descriptor 1, as Linux names it: the file the standard output was opened on. */
  private static final Path STDOUT = Path.of("/proc/self/fd/1");

  private static final String STDOUT_NAME = "standard output";

  private final List<Role> inputs = new ArrayList<>();
  private final List<Role> outputs = new ArrayList<>();

  /** Adds an input (ignored when null: an option not given). */
  public DistinctFiles input(String name, Path path) {
    if (path != null) {
      inputs.add(new Role(name, path));
    }
    return this;
  }

  /** Adds inputs sharing one role (ignored when null). */
  public DistinctFiles inputs(String name, List<Path> paths) {
    if (paths != null) {
      paths.forEach(p -> input(name, p));
    }
    return this;
  }

  /** Adds an output (ignored when null). */
  public DistinctFiles output(String name, Path path) {
    if (path != null) {
      outputs.add(new Role(name, path));
    }
    return this;
  }

  /**
   * Adds {@code path} as output {@code name}, or when it is null the standard output the data then
   * goes to, if that is a regular file: {@code read d.img d.hash ROOT >> d.img} would append to the
   * data it reads, as {@code cat f >> f} would (cat refuses: "input file is output file"). A pipe
   * or a terminal is no file of ours.
   */
  public DistinctFiles outputOrStdout(String name, Path path) {
    if (path != null) {
      return output(name, path);
    }
    if (Files.isRegularFile(STDOUT)) {
      outputs.add(new Role(STDOUT_NAME, STDOUT));
    }
    return this;
  }

  /**
   * Throws {@link ExitCode#INVALID_PARAMETER} naming the first output that is an input or an
   * earlier output; returns when every output is a file of its own.
   */
  public void check() throws IOException {
    for (int i = 0; i < outputs.size(); i++) {
      Role out = outputs.get(i);
      for (Role in : inputs) {
        if (same(out.path(), in.path())) {
          throw refused(out, in, "would write over the " + in.name() + " it reads");
        }
      }
      for (Role earlier : outputs.subList(0, i)) {
        if (same(out.path(), earlier.path())) {
          throw refused(out, earlier, "is also the " + earlier.name() + " output");
        }
      }
    }
  }

  private static CliException refused(Role out, Role other, String why) {
    String named =
        out.path().toString().equals(other.path().toString()) ? "" : " (" + other.path() + ")";
    if (out.path() == STDOUT) {
      return new CliException(
          ExitCode.INVALID_PARAMETER,
          STDOUT_NAME + " " + why + named + "; send it to another file or give --output");
    }
    return new CliException(
        ExitCode.INVALID_PARAMETER,
        out.path() + ": " + out.name() + " " + why + named + "; give another file");
  }

  /** Whether two paths name one file ({@link SameFile}). */
  public static boolean same(Path a, Path b) throws IOException {
    return SameFile.same(a, b);
  }
}
