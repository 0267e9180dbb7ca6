package org.jverity.remote.cache;

import java.io.IOException;

/**
 * A cache directory whose files cannot be used as they are (a symbolic link, a directory or another
 * kind of file where a regular file of the cache belongs, or one with other hard links): the cache
 * refuses to open, follow or truncate it, and the process runs without the cache rather than fail
 * at every start.
 */
final class UnusableCacheException extends IOException {
  UnusableCacheException(String message) {
    super(message);
  }
}
