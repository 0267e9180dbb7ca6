package org.jverity.remote;

/**
 * Told when a device under {@link RemoteOptions.OnChange#REOPEN} found its object replaced and
 * reads on over the new version: the server logs it, naming the export ({@code --on-change reopen}
 * would otherwise switch objects without a word). Called on the reading thread, once per change,
 * under the device's lock: it must not block.
 */
@FunctionalInterface
public interface ReopenListener {
  /** Tells nobody. */
  ReopenListener NONE = (before, now) -> {};

  /** The device pinned to {@code before} reads {@code now} from here on (same location, size). */
  void reopened(ObjectIdentity before, ObjectIdentity now);
}
