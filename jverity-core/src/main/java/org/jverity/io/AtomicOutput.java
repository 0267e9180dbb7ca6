package org.jverity.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An output file that appears only when the command succeeds: bytes go to a temporary file beside
 * it, which is synced and renamed over it by {@link #commit}; without a commit, {@link #close}
 * deletes the temporary and the file is as it was (absent if it did not exist). So a read that
 * fails verification, or any other failure, never empties or damages an existing file, as users of
 * {@code curl -o}, {@code rsync} and {@code cp} expect. So does the end of the process before the
 * commit (Ctrl-C, SIGTERM): an {@link ExitHook} deletes the temporary, and a temporary that a
 * killed process left (SIGKILL, a crash) is deleted by the next output to that file once its name
 * proves its process gone ({@link TemporaryName}).
 *
 * <p>The temporary is open from its creation ({@link #writer}, {@link #device}): nothing opens it
 * by name again, so an interrupt that deleted it cannot see it made anew. Failures to write it name
 * the file as the caller named it, not the temporary.
 *
 * <p>The temporary is created as the file itself would be (mode 0666 less the umask, or 0600 with
 * {@link Option#OWNER_ONLY}); over an existing file it takes that file's mode, and with {@link
 * Option#KEEP_CONTENT} its bytes. A rename gives the name a new inode: other hard links to the old
 * file keep the old content, as with {@code rsync}. An existing file this process may not write is
 * refused, as {@code cp} refuses it, though its directory would allow the rename.
 *
 * <p>What is not a regular file (a block device, {@code /dev/null}, a pipe) cannot be replaced by a
 * rename, and is written in place, as before.
 */
public final class AtomicOutput implements AutoCloseable {
  /** How the temporary starts. */
  public enum Option {
    /** A copy of the existing file, for a command that writes only part of it. */
    KEEP_CONTENT,
    /** Mode 0600 when the file does not exist yet (an existing one's mode is kept). */
    OWNER_ONLY
  }

  private enum State {
    OPEN,
    COMMITTED,
    ABANDONED
  }

  private final Path shown; // the file as the caller named it: what messages say
  private final Path target; // the file the caller named, links resolved
  private final Path temporary; // where bytes go; == target when written in place
  private final FileChannel channel; // the temporary, open since its creation; null in place
  private ExitHook hook; // null in place
  private State state = State.OPEN; // guarded by this

  private AtomicOutput(Path shown, Path target, Path temporary, FileChannel channel) {
    this.shown = shown;
    this.target = target;
    this.temporary = temporary;
    this.channel = channel;
  }

  /** Prepares an output to {@code file}; nothing visible changes until {@link #commit}. */
  public static AtomicOutput to(Path file, Option... options) throws IOException {
    Set<Option> opts = options.length == 0 ? Set.of() : Set.of(options);
    boolean exists = Files.exists(file);
    if (exists && !Files.isRegularFile(file)) {
      return new AtomicOutput(file, file, file, null); // a device or a pipe: written in place
    }
    // Through a symbolic link, the file it names is replaced, not the link.
    Path target = exists ? file.toRealPath() : file.toAbsolutePath();
    Path dir = target.getParent();
    String name = target.getFileName().toString();
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(file.toString(), null, "no such directory");
    }
    if (exists && !Files.isWritable(target)) {
      throw new AccessDeniedException(file.toString());
    }
    List<FileAttribute<?>> attrs = new ArrayList<>();
    if (!exists && opts.contains(Option.OWNER_ONLY)) {
      attrs.add(PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    for (int attempt = 0; ; attempt++) {
      TemporaryName tmpName = TemporaryName.fresh(name);
      Path tmp = dir.resolve(tmpName.fileName());
      FileChannel ch;
      try {
        ch =
            FileChannel.open(
                tmp,
                Set.of(
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE),
                attrs.toArray(FileAttribute<?>[]::new));
      } catch (FileAlreadyExistsException e) {
        if (attempt < 100) {
          continue;
        }
        throw e;
      } catch (UnsupportedOperationException e) {
        attrs.clear(); // no POSIX modes here: the default applies
        continue;
      } catch (IOException e) {
        throw new IOException(
            file
                + ": cannot create a temporary file in "
                + dir
                + " ("
                + reason(e)
                + "); the output is written there first, then renamed");
      }
      AtomicOutput out = new AtomicOutput(file, target, tmp, ch);
      try {
        out.hook = ExitHook.register("remove " + tmp, out::abandon);
        if (exists) {
          try {
            Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(target));
          } catch (UnsupportedOperationException e) {
            // no POSIX modes here: the default applies
          }
          if (opts.contains(Option.KEEP_CONTENT)) {
            out.copyFrom(target);
          }
        }
        removeAbandoned(dir, name, tmp);
      } catch (IOException | RuntimeException e) {
        out.close();
        throw e;
      }
      return out;
    }
  }

  /** Writes {@code bytes} as the whole of {@code file}, through a temporary and a commit. */
  public static void write(Path file, byte[] bytes, Option... options) throws IOException {
    try (AtomicOutput out = to(file, options)) {
      WritableByteChannel w = out.writer();
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        w.write(b);
      }
      w.close();
      out.commit();
    }
  }

  /** The temporary, or the file itself for a device. For reading; write through the methods. */
  public Path path() {
    return temporary;
  }

  /** Whether the file is written in place (a device, a pipe), not beside and renamed. */
  public boolean inPlace() {
    return channel == null;
  }

  /**
   * Writes from the start, in order; a failure names the file. Closing it keeps the output open for
   * {@link #commit} (in place, it closes the file).
   */
  public WritableByteChannel writer() throws IOException {
    FileChannel ch = channel != null ? channel : FileChannel.open(target, StandardOpenOption.WRITE);
    return new WritableByteChannel() {
      private long written;

      @Override
      public int write(ByteBuffer src) throws IOException {
        try {
          int n = ch.write(src);
          written += n;
          return n;
        } catch (IOException e) {
          throw named(e, "write at byte " + written);
        }
      }

      @Override
      public boolean isOpen() {
        return ch.isOpen();
      }

      @Override
      public void close() throws IOException {
        if (ch != channel) {
          ch.close();
        }
      }
    };
  }

  /**
   * A device over the output, for positional writes (and reads of what was written); its failures
   * name the file. Closing it keeps the output open for {@link #commit}.
   */
  public FileDevice device() throws IOException {
    return channel != null
        ? FileDevice.borrowing(channel, shown)
        : FileDevice.openChannel(target, true);
  }

  /** Syncs the bytes written and renames the temporary over the file, atomically. */
  public void commit() throws IOException {
    if (channel == null) {
      committed();
      return;
    }
    requireOpen();
    try {
      channel.force(
          true); // the data before the name: a crash after the rename leaves the whole file
    } catch (IOException e) {
      throw named(e, "sync");
    }
    synchronized (this) {
      requireOpen(); // the process may have begun to end during the sync: then the hook removed it
      try {
        Files.move(
            temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        throw new IOException(shown + ": cannot replace it (" + reason(e) + ")", e);
      }
      state = State.COMMITTED;
    }
    closeChannel();
    hook.close();
    syncDirectory(target.getParent());
  }

  private synchronized void committed() {
    state = State.COMMITTED;
  }

  private synchronized void requireOpen() throws IOException {
    if (state != State.OPEN) {
      throw new IOException(shown + ": not written (the process is ending)");
    }
  }

  /** Deletes the temporary unless committed: a failed command leaves the file as it was. */
  @Override
  public void close() {
    if (channel == null) {
      return;
    }
    abandon();
    closeChannel();
    if (hook != null) {
      hook.close();
    }
  }

  /**
   * Deletes the temporary unless committed; also from the {@link ExitHook}, while a writer may
   * still write: it then writes to a file with no name, whose space the end of the process frees,
   * and a later commit fails.
   */
  private synchronized void abandon() {
    if (state != State.OPEN) {
      return;
    }
    state = State.ABANDONED;
    try {
      Files.deleteIfExists(temporary);
    } catch (IOException e) {
      // nothing more to do: the file itself was not touched
    }
  }

  private void closeChannel() {
    try {
      channel.close();
    } catch (IOException e) {
      // its bytes are synced (committed) or dropped (abandoned)
    }
  }

  /** The existing file's bytes into the temporary. */
  private void copyFrom(Path file) throws IOException {
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = in.size();
      long done = 0;
      while (done < size) {
        long n;
        try {
          n = in.transferTo(done, size - done, channel.position(done));
        } catch (IOException e) {
          throw named(e, "copy its " + size + " bytes aside");
        }
        if (n <= 0) {
          break; // it shrank meanwhile: what it has is copied
        }
        done += n;
      }
    }
  }

  /**
   * The system's bare error (a plain IOException, such as "No space left on device", which names no
   * file) with the file; other kinds (closed, interrupted) unchanged.
   */
  private IOException named(IOException e, String op) {
    if (e.getClass() != IOException.class || e.getMessage() == null) {
      return e;
    }
    return new IOException(shown + ": cannot " + op + ": " + reason(e), e);
  }

  /** What went wrong, in lower case, without the file names the JDK puts first. */
  private static String reason(IOException e) {
    String r =
        e instanceof AccessDeniedException
            ? "permission denied"
            : e instanceof FileSystemException f && f.getReason() != null
                ? f.getReason()
                : e.getMessage() != null ? e.getMessage() : e.toString();
    return r.isEmpty() ? r : Character.toLowerCase(r.charAt(0)) + r.substring(1);
  }

  /**
   * Deletes the temporaries of {@code name} in {@code dir} that a process of this user left when it
   * was killed: their names prove the process gone. Others (another user's, a live process's, one
   * of another boot or host, an older jverity's unstamped one) are kept.
   */
  private static void removeAbandoned(Path dir, String name, Path mine) {
    Object uid;
    try {
      uid = Files.getAttribute(mine, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return; // no owners here: nothing proves a temporary ours
    }
    try (DirectoryStream<Path> s =
        Files.newDirectoryStream(
            dir, p -> TemporaryName.looksLikeOneOf(name, p.getFileName().toString()))) {
      for (Path p : s) {
        Optional<TemporaryName> t = TemporaryName.parse(name, p.getFileName().toString());
        if (p.equals(mine) || t.isEmpty() || !t.get().abandoned()) {
          continue;
        }
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
            && uid.equals(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS))) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException | RuntimeException e) {
      // a leftover stays: this output does not depend on it
    }
  }

  /** Makes the rename durable; a file system that cannot sync a directory is left as it is. */
  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // the rename happened; only its durability across a crash is the file system's
    }
  }
}
