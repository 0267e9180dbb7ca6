package org.jverity.remote;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One object at a remote origin (an HTTP(S) URL or an S3 key), pinned at open to the {@link
 * ObjectIdentity} it had then: every fetch asks for that version only (S3's and HTTP's {@code
 * If-Match}), so an object replaced under a running server is an {@link ObjectChangedException},
 * never a mix of two versions. Nothing it returns is trusted: the verified reader checks it.
 *
 * <p>Thread-safe; fetches may run concurrently (the origin bounds how many are in flight).
 */
public interface Origin extends Closeable {
  /** Names the object in messages: its URL without credentials or signed query parameters. */
  String description();

  /** What was pinned at open: location, ETag or version, size. */
  ObjectIdentity identity();

  /**
   * Fills {@code dst} from its position to its limit with the object's bytes at {@code offset}, in
   * one range request (retried on transient faults within the origin's bounds).
   *
   * @throws ObjectChangedException when the object is no longer the one pinned
   * @throws OriginException when the origin failed or answered wrongly (one line: origin, range,
   *     status)
   */
  void fetch(long offset, ByteBuffer dst) throws IOException;

  /**
   * The object's first bytes (from offset 0, position 0 to limit) when the open already fetched
   * them, the first time asked; then, or when it fetched none, null. A device keeps them in its
   * cache, so the read that needs them (a superblock, a first data block) asks no second time.
   */
  default ByteBuffer takeOpening() {
    return null;
  }

  /**
   * The counters of this origin's requests (shared by every origin of one {@link RemoteSource}).
   */
  RemoteStats stats();

  /**
   * A new origin for the same location, pinned to the object as it is now (its new ETag and size):
   * for {@code --on-change reopen}, after an {@link ObjectChangedException}. This origin stays
   * pinned to the old version; the caller closes it. An origin that cannot look again says so.
   */
  default Origin reopen() throws IOException {
    throw new OriginException(description() + ": cannot be reopened", 0);
  }
}
