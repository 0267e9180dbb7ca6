package org.jverity.fec;

/**
 * Decodes codewords of {@link ReedSolomon}'s code, with errors and erasures, the way libfec's
 * {@code decode_rs_char} does for dm-verity (fcr 0, prim 1, no padding): syndromes,
 * Berlekamp–Massey started from the erasure locator, Chien search, Forney. Immutable; thread-safe
 * (scratch space is per call).
 *
 * <p>A codeword is 255 bytes: the message (byte 0 the highest coefficient), then the parity.
 * Position p is the coefficient of x^(254 − p), so its error locator is α^(254 − p). The decoder
 * corrects any pattern of e errors and f erasures with 2e + f ≤ roots. It is stricter than libfec
 * in two ways, both to refuse rather than miscorrect: a locator of degree d with 2d − f > roots is
 * beyond the code's guarantee and is refused, and after correcting, the syndromes are computed
 * again and must be zero, so a success always leaves a codeword.
 */
public final class ReedSolomonDecoder {
  /** Positions in a codeword. */
  private static final int N = ReedSolomon.N;

  private final int roots;
  private final byte[][]
      syndromeTables; // syndromeTables[j]: x·α^j for every x (Horner step of S_j)

  public ReedSolomonDecoder(int roots) {
    this.roots = ReedSolomon.checkRoots("RS roots", roots, IllegalArgumentException::new);
    this.syndromeTables = new byte[roots][];
    for (int j = 0; j < roots; j++) {
      syndromeTables[j] = GaloisField.multiplicationTable(GaloisField.exp(j));
    }
  }

  /** Parity bytes per codeword. */
  public int roots() {
    return roots;
  }

  /**
   * Decodes {@code codeword[off, off + 255)} in place, without erasures. See {@link #decode(byte[],
   * int, int[], int)}.
   */
  public int decode(byte[] codeword, int off) {
    return decode(codeword, off, null, 0);
  }

  /**
   * Decodes {@code codeword[off, off + 255)} in place.
   *
   * @param erasures positions (0..254) known or suspected to be wrong, {@code erasures[0, count)};
   *     a position that is in fact right costs capability but does no harm; duplicates count once
   * @return the number of bytes changed (0 when it already was a codeword), or -1 when the word
   *     cannot be decoded within the code's capability; then the codeword is left as it was
   * @throws IllegalArgumentException if an erasure position is out of range
   */
  public int decode(byte[] codeword, int off, int[] erasures, int count) {
    int[] s = new int[roots];
    if (!syndromes(codeword, off, s)) {
      return 0;
    }
    boolean[] erased = new boolean[N];
    int f = 0;
    int[] lambda = new int[roots + 1]; // error+erasure locator, poly form, lambda[i] of x^i
    lambda[0] = 1;
    for (int e = 0; e < count; e++) {
      int p = erasures[e];
      if (p < 0 || p >= N) {
        throw new IllegalArgumentException(
            "erasure position: " + p + " (expected: 0 to " + (N - 1) + ")");
      }
      if (erased[p]) {
        continue;
      }
      erased[p] = true;
      if (++f > roots) {
        return -1; // more unknowns than parity: nothing to solve
      }
      int x = locator(p); // lambda(x) ← lambda(x)·(1 + X·x)
      for (int i = f; i > 0; i--) {
        lambda[i] ^= GaloisField.mul(lambda[i - 1], x);
      }
    }

    // Berlekamp–Massey from the erasure locator (Karn's decode_rs.h): steps r = f+1 .. roots.
    int[] b = lambda.clone(); // correction polynomial
    int[] t = new int[roots + 1];
    int el = f; // current locator length
    for (int r = f + 1; r <= roots; r++) {
      int discrepancy = 0;
      for (int i = 0; i < r; i++) {
        discrepancy ^= GaloisField.mul(lambda[i], s[r - i - 1]);
      }
      if (discrepancy == 0) {
        shiftUp(b);
        continue;
      }
      t[0] = lambda[0]; // T(x) ← lambda(x) − Δ·x·B(x)
      for (int i = 0; i < roots; i++) {
        t[i + 1] = lambda[i + 1] ^ GaloisField.mul(discrepancy, b[i]);
      }
      if (2 * el <= r + f - 1) {
        el = r + f - el;
        int inv = GaloisField.inverse(discrepancy); // B(x) ← lambda(x) / Δ
        for (int i = 0; i <= roots; i++) {
          b[i] = GaloisField.mul(lambda[i], inv);
        }
      } else {
        shiftUp(b);
      }
      System.arraycopy(t, 0, lambda, 0, roots + 1);
    }
    int degree = 0;
    for (int i = 0; i <= roots; i++) {
      if (lambda[i] != 0) {
        degree = i;
      }
    }
    if (degree == 0 || 2 * degree - f > roots) {
      return -1; // nonzero syndromes but no locator, or more errors than the code guarantees
    }

    // Chien search: position p is wrong when lambda(1 / X_p) = 0, 1 / X_p = α^(p + 1).
    int[] found = new int[degree];
    int nFound = 0;
    for (int p = 0; p < N && nFound < degree; p++) {
      if (evaluate(lambda, degree, GaloisField.exp(p + 1)) == 0) {
        found[nFound++] = p;
      }
    }
    if (nFound != degree) {
      return -1; // the locator does not split over the codeword's positions
    }

    // Forney (fcr 0): e_p = X_p · omega(1 / X_p) / lambda'(1 / X_p), omega = S·lambda mod x^roots.
    int[] omega = new int[degree];
    for (int i = 0; i < degree; i++) {
      int v = 0;
      for (int j = 0; j <= i; j++) {
        v ^= GaloisField.mul(s[i - j], lambda[j]);
      }
      omega[i] = v;
    }
    int[] magnitude = new int[degree];
    for (int j = 0; j < degree; j++) {
      int p = found[j];
      int inverseX = GaloisField.exp(p + 1);
      int num = evaluate(omega, degree - 1, inverseX);
      int den = 0; // lambda'(x) = Σ odd i: lambda_i x^(i−1) in characteristic 2
      for (int i = 1; i <= degree; i += 2) {
        den ^= GaloisField.mul(lambda[i], GaloisField.exp((i - 1) * (p + 1)));
      }
      if (den == 0) {
        return -1;
      }
      magnitude[j] = GaloisField.mul(GaloisField.div(num, den), locator(p));
    }
    int changed = 0;
    for (int j = 0; j < degree; j++) {
      if (magnitude[j] != 0) {
        codeword[off + found[j]] ^= (byte) magnitude[j];
        changed++;
      }
    }
    if (syndromes(codeword, off, s)) { // not a codeword after all: undo, refuse
      for (int j = 0; j < degree; j++) {
        codeword[off + found[j]] ^= (byte) magnitude[j];
      }
      return -1;
    }
    return changed;
  }

  /**
   * S_j = c(α^j), j = 0..roots−1, into {@code s}; returns whether any is nonzero (the word is not a
   * codeword).
   */
  private boolean syndromes(byte[] codeword, int off, int[] s) {
    int any = 0;
    for (int j = 0; j < roots; j++) {
      byte[] times = syndromeTables[j];
      int v = 0;
      for (int p = 0; p < N; p++) {
        v = (times[v] ^ codeword[off + p]) & 0xff;
      }
      s[j] = v;
      any |= v;
    }
    return any != 0;
  }

  /** The error locator of position p: α^(254 − p). */
  private static int locator(int p) {
    return GaloisField.exp(N - 1 - p);
  }

  /** poly(x) for a polynomial of degree ≤ {@code degree} (coefficient i of x^i), by Horner. */
  private static int evaluate(int[] poly, int degree, int x) {
    int v = 0;
    for (int i = degree; i >= 0; i--) {
      v = GaloisField.mul(v, x) ^ poly[i];
    }
    return v;
  }

  /** B(x) ← x·B(x), dropping the top coefficient (it is zero when it matters). */
  private static void shiftUp(int[] b) {
    System.arraycopy(b, 0, b, 1, b.length - 1);
    b[0] = 0;
  }
}
