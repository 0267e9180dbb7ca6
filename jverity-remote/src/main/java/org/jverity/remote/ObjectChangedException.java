package org.jverity.remote;

/**
 * The object at the origin is no longer the one pinned at open (412 to {@code If-Match}, or a new
 * ETag or size): "data object changed since open: ETag A -> B". Said once per device; every later
 * fetch of it fails the same way without asking the origin again.
 */
public class ObjectChangedException extends OriginException {
  private static final long serialVersionUID = 1L;

  private final ObjectIdentity pinned;
  private final String nowEtag; // null when the origin did not say

  public ObjectChangedException(String role, ObjectIdentity pinned, String nowEtag) {
    super(
        role
            + " object changed since open: ETag "
            + pinned.etag()
            + " -> "
            + (nowEtag == null ? "(unknown)" : nowEtag)
            + " ("
            + pinned.location()
            + ")",
        412);
    this.pinned = pinned;
    this.nowEtag = nowEtag;
  }

  public ObjectIdentity pinned() {
    return pinned;
  }

  public String nowEtag() {
    return nowEtag;
  }
}
