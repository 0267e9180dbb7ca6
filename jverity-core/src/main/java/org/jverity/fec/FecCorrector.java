package org.jverity.fec;

import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.io.BlockDevice;

/**
 * Corrects one message block of a {@link FecLayout} from its round: reads the round's k message
 * blocks (one ascending sweep; rows past T are zeros) and its parity, decodes the B codewords of
 * the round, and returns the requested row. Thread-safe.
 *
 * <p>A decoded round is kept in a small cache bounded in bytes (at least one round), keyed by the
 * round and the erasures asked for, so correcting neighbours of the same round decodes once; two
 * threads asking for the same round at once share one decode. A message block that fails to read is
 * an erasure (and the result is not kept: the next attempt reads again).
 */
public final class FecCorrector {
  /** Default bound of the decoded-round cache: 8 rounds of 4 KiB blocks. */
  public static final long DEFAULT_CACHE_BYTES = 8L << 20;

  private final FecLayout layout;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final BlockDevice fec;
  private final ReedSolomonDecoder decoder;
  private final int maxRounds; // decoded rounds kept

  /** Decoded rounds, least recently used first; a null result means uncorrectable. */
  private final LinkedHashMap<Key, CompletableFuture<byte[]>> rounds =
      new LinkedHashMap<>(16, 0.75f, true);

  private final LongAdder decodes = new LongAdder();
  private final LongAdder readFailures = new LongAdder();

  /**
   * The round, the rows of it given as erasures, and whether only screened codewords are decoded.
   */
  private record Key(long round, BitSet erasedRows, boolean screened) {}

  public FecCorrector(FecLayout layout, BlockDevice data, BlockDevice hash, BlockDevice fec) {
    this(layout, data, hash, fec, DEFAULT_CACHE_BYTES);
  }

  /**
   * @param cacheBytes bound of the decoded-round cache, bytes; one round (k·B bytes) is always kept
   */
  public FecCorrector(
      FecLayout layout, BlockDevice data, BlockDevice hash, BlockDevice fec, long cacheBytes) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.data = Objects.requireNonNull(data, "data");
    this.hash = Objects.requireNonNull(hash, "hash");
    this.fec = Objects.requireNonNull(fec, "fec");
    if (cacheBytes < 0) {
      throw new IllegalArgumentException("FEC cache bytes: " + cacheBytes + " (expected: >= 0)");
    }
    this.decoder = new ReedSolomonDecoder(layout.roots());
    this.maxRounds = (int) Math.max(1, Math.min(1024, cacheBytes / roundBytes()));
  }

  public FecLayout layout() {
    return layout;
  }

  /** Rounds decoded so far (cache misses): what neighbouring corrections saved shows here. */
  public long roundsDecoded() {
    return decodes.sum();
  }

  /** Message blocks that failed to read and were taken as erasures. */
  public long readFailures() {
    return readFailures.sum();
  }

  /**
   * The corrected message block {@code messageIndex} (B bytes), or null when a codeword of its
   * round cannot be corrected (or the parity cannot be read).
   *
   * @param erasures message blocks known or suspected to be bad; those outside the round are
   *     ignored
   * @throws IllegalArgumentException if {@code messageIndex} is not a message block (0..T−1)
   */
  public byte[] correct(long messageIndex, long[] erasures) {
    return correct(messageIndex, erasures, false);
  }

  /**
   * As {@link #correct(long, long[])}, but only the codewords whose bytes do not XOR to zero are
   * decoded (every codeword of this code XORs to zero, α^0 being a root, and any single error
   * breaks that): with damage of a few bytes here and there, a handful of B codewords instead of
   * all. A codeword with errors that happen to XOR to zero is left as it is, so the result may be
   * wrong: the caller must verify it against the tree, and fall back to the full decode.
   */
  public byte[] correctScreened(long messageIndex, long[] erasures) {
    return correct(messageIndex, erasures, true);
  }

  private byte[] correct(long messageIndex, long[] erasures, boolean screened) {
    if (messageIndex < 0 || messageIndex >= layout.messageBlocks()) {
      throw new IllegalArgumentException(
          "message block: "
              + messageIndex
              + " (expected: 0 to "
              + (layout.messageBlocks() - 1)
              + ")");
    }
    long round = layout.round(messageIndex);
    BitSet erased = new BitSet(layout.messageLength());
    for (long m : erasures) {
      if (m >= 0 && m < layout.messageBlocks() && layout.round(m) == round) {
        erased.set(layout.row(m));
      }
    }
    byte[] rows = decoded(new Key(round, erased, screened));
    if (rows == null) {
      return null;
    }
    int b = layout.blockSize();
    int at = layout.row(messageIndex) * b;
    return Arrays.copyOfRange(rows, at, at + b);
  }

  /**
   * The fast path for a round with one bad block: every codeword of this code has α^0 = 1 among its
   * roots, so the XOR of its 255 bytes is zero, and one erased byte is the XOR of the other 254.
   * This computes block {@code messageIndex} that way, a few XORs per byte instead of a full decode
   * per codeword; it is right exactly when no other block of the round is bad at the same byte,
   * which only the tree can tell: the caller must verify it (and fall back to {@link #correct}).
   * Null when a block of the round or the parity cannot be read.
   */
  public byte[] correctSingleErasure(long messageIndex) {
    int k = layout.messageLength();
    int bs = layout.blockSize();
    int roots = layout.roots();
    long round = layout.round(messageIndex);
    int row = layout.row(messageIndex);
    int validRows = validRows(round);
    byte[] rows = new byte[k * bs];
    BitSet erased = new BitSet();
    if (readRows(round, validRows, rows, erased)
        && !(erased.cardinality() == 1 && erased.get(row))) {
      return null; // another block of the round is unreadable: not a single erasure
    }
    byte[] parity = new byte[bs * roots];
    try {
      fec.readFully(layout.parityOffset(round), parity, 0, parity.length);
    } catch (IOException e) {
      readFailures.increment();
      return null;
    }
    byte[] out = new byte[bs];
    for (int b = 0; b < bs; b++) {
      int x = 0;
      for (int j = 0; j < roots; j++) {
        x ^= parity[b * roots + j];
      }
      out[b] = (byte) x;
    }
    for (int i = 0; i < validRows; i++) { // rows past T are zeros: nothing to add
      if (i != row) {
        int at = i * bs;
        for (int b = 0; b < bs; b++) {
          out[b] ^= rows[at + b];
        }
      }
    }
    return out;
  }

  /** The round's corrected message (k·B bytes, row by row), from the cache or decoded now. */
  private byte[] decoded(Key key) {
    CompletableFuture<byte[]> f;
    boolean mine = false;
    synchronized (rounds) {
      f = rounds.get(key);
      if (f == null) {
        f = new CompletableFuture<>();
        rounds.put(key, f);
        mine = true;
        Iterator<Map.Entry<Key, CompletableFuture<byte[]>>> it = rounds.entrySet().iterator();
        while (rounds.size() > maxRounds && it.hasNext()) {
          Map.Entry<Key, CompletableFuture<byte[]>> e = it.next();
          if (e.getValue() != f) {
            it.remove(); // a waiter holds its own future, so eviction never strands it
          }
        }
      }
    }
    if (!mine) {
      return f.join();
    }
    Decode d = null;
    try {
      d = decodeRound(key);
      f.complete(d.rows);
      return d.rows;
    } catch (RuntimeException | Error e) {
      f.completeExceptionally(e);
      throw e;
    } finally {
      if (d == null || d.readFailed) {
        synchronized (rounds) {
          rounds.remove(key, f);
        }
      }
    }
  }

  private record Decode(byte[] rows, boolean readFailed) {}

  /** Reads and decodes a round; rows null when a codeword cannot be corrected. */
  private Decode decodeRound(Key key) {
    decodes.increment();
    int k = layout.messageLength();
    int bs = layout.blockSize();
    int roots = layout.roots();
    long round = key.round();
    int validRows = validRows(round);
    byte[] rows = new byte[k * bs];
    BitSet erased = (BitSet) key.erasedRows().clone();
    erased.clear(validRows, k); // rows past T are known zeros
    boolean readFailed = readRows(round, validRows, rows, erased);

    byte[] parity = new byte[bs * roots];
    try {
      fec.readFully(layout.parityOffset(round), parity, 0, parity.length);
    } catch (IOException e) {
      readFailures.increment();
      return new Decode(null, true);
    }
    int[] positions = erased.stream().toArray();
    if (positions.length > roots) {
      return new Decode(null, readFailed);
    }
    byte[] dirty = key.screened() ? xorOfCodewords(rows, validRows, parity) : null;
    byte[] cw = new byte[ReedSolomon.N];
    for (int b = 0; b < bs; b++) {
      if (dirty != null && dirty[b] == 0) {
        continue; // XORs to zero: taken as clean (the tree decides)
      }
      for (int i = 0; i < k; i++) {
        cw[i] = rows[i * bs + b];
      }
      System.arraycopy(parity, b * roots, cw, k, roots);
      int n = decoder.decode(cw, 0, positions, positions.length);
      if (n < 0) {
        return new Decode(null, readFailed);
      }
      if (n > 0) {
        for (int i = validRows; i < k; i++) {
          if (cw[i] != 0) {
            return new Decode(null, readFailed); // "corrected" a block that is zeros by definition
          }
        }
        for (int i = 0; i < validRows; i++) {
          rows[i * bs + b] = cw[i];
        }
      }
    }
    return new Decode(rows, readFailed);
  }

  /** Per byte position, the XOR of its codeword's 255 bytes: zero for every codeword. */
  private byte[] xorOfCodewords(byte[] rows, int validRows, byte[] parity) {
    int bs = layout.blockSize();
    int roots = layout.roots();
    byte[] x = new byte[bs];
    for (int i = 0; i < validRows; i++) {
      int at = i * bs;
      for (int b = 0; b < bs; b++) {
        x[b] ^= rows[at + b];
      }
    }
    for (int b = 0; b < bs; b++) {
      for (int j = 0; j < roots; j++) {
        x[b] ^= parity[b * roots + j];
      }
    }
    return x;
  }

  /** Rows of {@code round} that are message blocks (the rest, past T, are zeros). */
  private int validRows(long round) {
    long t = layout.messageBlocks();
    return (int) Math.min(layout.messageLength(), Math.ceilDiv(t - round, layout.rounds()));
  }

  /**
   * Reads rows [0, validRows) of the round into {@code rows}, in ascending order on each device;
   * runs of adjacent blocks (one round: R = 1) in one read. A block that fails to read stays zeros
   * and becomes an erasure. Returns whether any failed.
   */
  private boolean readRows(long round, int validRows, byte[] rows, BitSet erased) {
    int bs = layout.blockSize();
    long stride = layout.rounds();
    boolean failed = false;
    int i = 0;
    while (i < validRows) {
      long m = layout.messageIndex(round, i);
      boolean isData = layout.isData(m);
      int j = i + 1; // run [i, j): same device, adjacent blocks
      while (stride == 1
          && j < validRows
          && layout.isData(layout.messageIndex(round, j)) == isData) {
        j++;
      }
      if (!readRun(round, i, j, rows)) {
        for (int r = i; r < j; r++) { // find which blocks of the run fail
          if (!readRun(round, r, r + 1, rows)) {
            Arrays.fill(rows, r * bs, (r + 1) * bs, (byte) 0);
            erased.set(r);
            readFailures.increment();
            failed = true;
          }
        }
      }
      i = j;
    }
    return failed;
  }

  /**
   * Reads rows [from, to) (adjacent blocks of one device); past the device's end reads as zeros.
   */
  private boolean readRun(long round, int from, int to, byte[] rows) {
    int bs = layout.blockSize();
    long m = layout.messageIndex(round, from);
    BlockDevice device = layout.isData(m) ? data : hash;
    long block = layout.isData(m) ? m : layout.hashBlockOf(m);
    try {
      long offset = block * bs;
      int want = (to - from) * bs;
      int n = (int) Math.max(0, Math.min(want, device.size() - offset));
      device.readFully(offset, rows, from * bs, n);
      Arrays.fill(rows, from * bs + n, from * bs + want, (byte) 0);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private long roundBytes() {
    return (long) layout.messageLength() * layout.blockSize();
  }
}
