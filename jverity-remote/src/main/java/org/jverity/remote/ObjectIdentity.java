package org.jverity.remote;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A remote object as it was pinned at open: where it is, which version (ETag, or S3's version id),
 * how big. The local cache is keyed by it, so a replaced object never reads another's cached
 * blocks. An ETag is opaque: it tells versions apart; the root hash, not the ETag, says what is
 * right.
 *
 * @param location the object's URL without credentials or signed query parameters
 * @param etag the ETag as the origin sent it (quotes included), or null when it sent none
 * @param versionId S3's {@code x-amz-version-id}, or null
 * @param size bytes
 */
public record ObjectIdentity(String location, String etag, String versionId, long size) {
  /** A file name for this identity: the SHA-256 of its fields, hex. */
  public String cacheKey() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      String text = location + "\n" + etag + "\n" + versionId + "\n" + size;
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  /**
   * What differs in {@code now}, the same object as found later: {@code ETag "a" -> "b"}, {@code
   * version id v1 -> v2}, {@code size 4096 -> 8192}, comma-separated; {@code no ETag, version id or
   * size} when none of them does (an origin that said so with a 412 alone).
   */
  public String changesTo(ObjectIdentity now) {
    List<String> changes = new ArrayList<>();
    if (!Objects.equals(etag, now.etag)) {
      changes.add("ETag " + shown(etag) + " -> " + shown(now.etag));
    }
    if (!Objects.equals(versionId, now.versionId)) {
      changes.add("version id " + shown(versionId) + " -> " + shown(now.versionId));
    }
    if (size != now.size) {
      changes.add("size " + size + " -> " + now.size);
    }
    return changes.isEmpty() ? "no ETag, version id or size" : String.join(", ", changes);
  }

  private static String shown(String value) {
    return value == null ? "(none)" : value;
  }
}
