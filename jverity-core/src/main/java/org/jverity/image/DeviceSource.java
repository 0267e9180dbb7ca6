package org.jverity.image;

import java.io.IOException;
import org.jverity.io.BlockDevice;

/**
 * Where an image's devices come from: opens a location (a path today; a URL tomorrow) into a
 * read-only {@link BlockDevice}. Every device {@link VerityImage} and {@link FecSource} open goes
 * through one, so a new kind of location plugs in here and nowhere else.
 */
public interface DeviceSource {
  /** Local files and block devices, by path: mapped where possible. */
  DeviceSource LOCAL = new LocalFiles(true);

  /**
   * Local files and block devices, by path, read with positional system calls and never mapped: for
   * a command that reads a large range once, in pieces of a mebibyte or more. There a system call
   * per piece costs nothing, while a mapping costs a page fault per 64 KiB and the page tables of
   * the whole file, built as it is read and torn down at the end (a 2 GiB read spent more on these
   * than on its system calls, and counted 2 GiB of resident memory).
   */
  DeviceSource LOCAL_STREAMED = new LocalFiles(false);

  /** Opens {@code location} for reading; the caller closes it. */
  BlockDevice open(String location) throws IOException;

  /**
   * Whether two locations are one device (then it is opened once, as the hash and FEC devices may
   * be).
   */
  boolean same(String a, String b) throws IOException;
}
