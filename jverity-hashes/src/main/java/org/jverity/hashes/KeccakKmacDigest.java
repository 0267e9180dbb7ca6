package org.jverity.hashes;

import org.bouncycastle.crypto.digests.KeccakDigest;
import org.bouncycastle.jcajce.provider.digest.BCMessageDigest;

/**
 * OpenSSL's {@code KECCAK-KMAC-128} and {@code -256}: the Keccak sponge KMAC runs on (capacity
 * twice the strength, the two cSHAKE padding bits {@code 00}), with none of KMAC's key or encoding,
 * squeezed to twice the strength in bytes (32 and 64). OpenSSL exposes it as a digest and
 * veritysetup therefore takes it; nothing else names it. Not thread-safe.
 */
final class KeccakKmacDigest extends BCMessageDigest {
  /**
   * @param strength 128 or 256 (bits)
   */
  KeccakKmacDigest(int strength) {
    super(new Sponge(strength));
  }

  private static final class Sponge extends KeccakDigest {
    Sponge(int strength) {
      super(strength); // capacity 2 × strength: rate 168 or 136 bytes
    }

    @Override
    public String getAlgorithmName() {
      return "KECCAK-KMAC-" + fixedOutputLength;
    }

    @Override
    public int getDigestSize() {
      return fixedOutputLength / 4; // twice the strength, in bytes
    }

    @Override
    public int doFinal(byte[] out, int outOff) {
      absorbBits(0x00, 2); // cSHAKE's suffix; pad10*1 follows in squeeze
      squeeze(out, outOff, getDigestSize() * 8L);
      reset();
      return getDigestSize();
    }
  }
}
