package org.jverity.ddi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jverity.text.Json;

/**
 * What a verity signature partition holds: JSON with the root hash in lower-case hex, the signer's
 * certificate's SHA-256 fingerprint (optional), and a detached PKCS#7 signature over the root
 * hash's hex, base64-encoded; NUL-padded to the partition's end. Written as systemd-repart writes
 * it (compact, keys in the order {@code rootHash}, {@code certificateFingerprint}, {@code
 * signature}, no newline); read by systemd-dissect's rules. Immutable.
 *
 * @param rootHash the root hash, lower-case hex
 * @param certificateFingerprint SHA-256 of the signer's DER certificate, lower-case hex; null when
 *     the JSON has none
 * @param signature the DER PKCS#7
 */
public record VeritySignature(String rootHash, String certificateFingerprint, byte[] signature) {

  /** systemd-dissect refuses a larger signature partition (dissect-image.c). */
  public static final int MAX_PARTITION_BYTES = 4 << 20;

  /** The size repart gives a signature partition (its {@code VERITY_SIG_SIZE}), NUL-padded. */
  public static final int PARTITION_BYTES = 16 << 10;

  /** A longer JSON (a large certificate) goes in a partition of a multiple of this. */
  public static final int PADDING = 4096;

  public VeritySignature {
    signature = signature.clone();
  }

  @Override
  public byte[] signature() {
    return signature.clone();
  }

  /** The fingerprint of {@code cert} as the JSON carries it. */
  public static String fingerprint(X509Certificate cert) {
    try {
      byte[] der = cert.getEncoded();
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(der));
    } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("certificate fingerprint: " + e.getMessage(), e);
    }
  }

  /** The JSON text, as repart writes it. */
  public String json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rootHash", rootHash);
    if (certificateFingerprint != null) {
      m.put("certificateFingerprint", certificateFingerprint);
    }
    m.put("signature", Base64.getEncoder().encodeToString(signature));
    String line = Json.line(m);
    return line.substring(0, line.length() - 1); // repart writes no newline
  }

  /**
   * The partition's contents: the JSON, NUL-padded to {@link #PARTITION_BYTES} as repart 254+
   * writes it, or to the next multiple of {@link #PADDING} past a longer JSON (repart would refuse
   * one; systemd-dissect reads any size up to {@link #MAX_PARTITION_BYTES}). At least one NUL.
   */
  public byte[] encode() {
    byte[] text = json().getBytes(StandardCharsets.UTF_8);
    int size = Math.max(PARTITION_BYTES, (text.length / PADDING + 1) * PADDING);
    return Arrays.copyOf(text, size);
  }

  /**
   * The signature in a signature partition's bytes, by systemd-dissect's rules: at most {@link
   * #MAX_PARTITION_BYTES}, nothing but NULs after the first NUL, a JSON object whose {@code
   * rootHash} is hex and whose {@code signature} is base64.
   *
   * @param source the partition, for messages ("partition 3 (root-x86-64-verity-sig)")
   */
  public static VeritySignature parse(String source, byte[] partition) throws DdiFormatException {
    if (partition.length > MAX_PARTITION_BYTES) {
      throw new DdiFormatException(
          source
              + ": "
              + partition.length
              + " bytes (expected: at most "
              + MAX_PARTITION_BYTES
              + ", as systemd-dissect accepts)");
    }
    int end = 0;
    while (end < partition.length && partition[end] != 0) {
      end++;
    }
    for (int i = end; i < partition.length; i++) {
      if (partition[i] != 0) {
        throw new DdiFormatException(
            source
                + ": byte "
                + i
                + " is not NUL after the JSON's end at "
                + end
                + " (expected: NUL padding only)");
      }
    }
    String text = new String(partition, 0, end, StandardCharsets.UTF_8);
    Object doc;
    try {
      doc = Json.parse(text);
    } catch (IllegalArgumentException e) {
      throw new DdiFormatException(source + ": " + e.getMessage());
    }
    if (!(doc instanceof Map<?, ?> m)) {
      throw new DdiFormatException(source + ": not a JSON object");
    }
    String root = hexField(source, m, "rootHash", true);
    String fingerprint = hexField(source, m, "certificateFingerprint", false);
    if (!(m.get("signature") instanceof String b64)) {
      throw new DdiFormatException(
          source
              + ": 'signature' "
              + (m.containsKey("signature") ? "not a string" : "missing")
              + " (expected: base64 of a PKCS#7 signature)");
    }
    byte[] der;
    try {
      der = Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException e) {
      throw new DdiFormatException(source + ": 'signature' is not base64 (" + e.getMessage() + ")");
    }
    if (der.length == 0) {
      throw new DdiFormatException(source + ": 'signature' is empty");
    }
    return new VeritySignature(root, fingerprint, der);
  }

  private static String hexField(String source, Map<?, ?> m, String key, boolean required)
      throws DdiFormatException {
    Object v = m.get(key);
    if (v == null && !required && !m.containsKey(key)) {
      return null;
    }
    if (!(v instanceof String s)
        || s.isEmpty()
        || s.length() % 2 != 0
        || !s.chars().allMatch(HexFormat::isHexDigit)) {
      throw new DdiFormatException(
          source
              + ": '"
              + key
              + "' "
              + (v == null ? "missing" : "is " + Json.line(v).strip())
              + " (expected: hex digits, an even number)");
    }
    return s.toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VeritySignature v
        && rootHash.equals(v.rootHash)
        && java.util.Objects.equals(certificateFingerprint, v.certificateFingerprint)
        && Arrays.equals(signature, v.signature);
  }

  @Override
  public int hashCode() {
    return rootHash.hashCode() * 31 + Arrays.hashCode(signature);
  }

  @Override
  public String toString() {
    return "VeritySignature[rootHash="
        + rootHash
        + ", certificateFingerprint="
        + certificateFingerprint
        + ", "
        + signature.length
        + " bytes]";
  }
}
