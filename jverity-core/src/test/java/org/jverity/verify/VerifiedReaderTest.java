package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Algorithms;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.Images;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeBuilder;

class VerifiedReaderTest {
  private static final int BS = 4096;

  /** A formatted image held in memory. */
  record Image(VerityParams params, byte[] data, byte[] hash, byte[] root) {
    VerifiedReader reader(long cacheBytes) throws Exception {
      return VerifiedReader.open(
          params,
          new MemoryDevice("data", data),
          new MemoryDevice("hash", hash),
          root,
          new HashBlockCache(cacheBytes),
          ReaderOptions.DEFAULTS);
    }
  }

  static Image image(
      int blocks, int dataBits, int hashBits, int algorithm, boolean chromeOs, long seed)
      throws Exception {
    HashAlgorithm alg = Algorithms.BUILT_IN.get(algorithm);
    int hbs = Math.max(1 << hashBits, Integer.highestOneBit(4 * alg.digestSize() - 1) << 1);
    VerityParams p =
        VerityParams.builder()
            .dataBlockSize(1 << dataBits)
            .hashBlockSize(hbs)
            .hashAlgorithm(alg)
            .hashFormat(chromeOs ? HashFormat.CHROME_OS : HashFormat.NORMAL)
            .dataBlocks(blocks)
            .salt(Images.random(seed, (int) (seed & 63)))
            .superblock(false)
            .build();
    byte[] data = Images.random(seed + 1, blocks << dataBits);
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(p).withThreads(1).build(new MemoryDevice("data", data), hash);
    return new Image(p, data, hash.toByteArray(), root);
  }

  @Property(tries = 80)
  void everyReadReturnsExactlyTheImageBytes(
      @ForAll @IntRange(min = 1, max = 600) int blocks,
      @ForAll @IntRange(min = 9, max = 12) int dataBits,
      @ForAll @IntRange(min = 9, max = 12) int hashBits,
      @ForAll @IntRange(min = 0, max = 10) int algorithm,
      @ForAll boolean chromeOs,
      @ForAll long seed)
      throws Exception {
    Image im = image(blocks, dataBits, hashBits, algorithm, chromeOs, seed);
    VerifiedReader r =
        im.reader(seed % 3 == 0 ? 1 : HashBlockCache.DEFAULT_CAPACITY_BYTES); // a 1-block cache too
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < 20; i++) {
      int length = rnd.nextInt(Math.min(im.data.length, 3 << dataBits) + 1);
      long offset = rnd.nextLong(im.data.length - length + 1);
      assertThat(r.read(offset, length))
          .isEqualTo(Arrays.copyOfRange(im.data, (int) offset, (int) offset + length));
    }
    assertThat(r.read(0, im.data.length)).isEqualTo(im.data);
  }

  @Property(tries = 80)
  void aFlippedByteFailsExactlyTheReadsItCovers(
      @ForAll @IntRange(min = 2, max = 400) int blocks,
      @ForAll @IntRange(min = 9, max = 11) int dataBits,
      @ForAll @IntRange(min = 9, max = 10) int hashBits,
      @ForAll @IntRange(min = 0, max = 10) int algorithm,
      @ForAll boolean chromeOs,
      @ForAll boolean inHashArea,
      @ForAll long seed)
      throws Exception {
    Image im = image(blocks, dataBits, hashBits, algorithm, chromeOs, seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    MerkleLayout g = MerkleLayout.dmVerity(im.params);
    int bs = im.params.dataBlockSize();
    long firstBad;
    long lastBad; // data blocks whose reads must fail
    if (inHashArea && im.hash.length > 0) {
      int at = rnd.nextInt(im.hash.length);
      im.hash[at] ^= (byte) (1 << rnd.nextInt(8));
      long hashBlock = at / im.params.hashBlockSize();
      int level = 0;
      while (level + 1 < g.levels() && hashBlock < g.levelStart(level)) {
        level++;
      }
      long indexInLevel = hashBlock - g.levelStart(level);
      int span =
          g.hashesPerBlockBits() * (level + 1); // data blocks under one level-`level` block: 2^span
      firstBad = indexInLevel << span;
      lastBad = Math.min(blocks, (indexInLevel + 1) << span) - 1;
    } else {
      int block = rnd.nextInt(blocks);
      im.data[block * bs + rnd.nextInt(bs)] ^= (byte) (1 << rnd.nextInt(8));
      firstBad = block;
      lastBad = block;
    }
    VerifiedReader r = im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES);
    for (long b = 0; b < blocks; b++) {
      long block = b;
      if (block >= firstBad && block <= lastBad) {
        assertThatThrownBy(() -> r.read(block * bs, bs))
            .isInstanceOf(CorruptBlockException.class)
            .satisfies(
                e ->
                    assertThat(((CorruptBlockException) e).area())
                        .isEqualTo(inHashArea && im.hash.length > 0 ? Area.HASH : Area.DATA));
      } else {
        assertThat(r.read(block * bs, bs))
            .isEqualTo(Arrays.copyOfRange(im.data, (int) block * bs, (int) (block + 1) * bs));
      }
    }
  }

  @Test
  void aCorruptDataBlockIsNamedAndReadsAroundItStillWork() throws Exception {
    Image im = image(300, 12, 12, 2, false, 5);
    im.data[77 * 4096 + 100] ^= 1;
    VerifiedReader r = im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES);
    assertThatThrownBy(() -> r.read(70 * 4096, 10 * 4096))
        .isInstanceOf(CorruptBlockException.class)
        .hasMessage("data: data block 77 is corrupted");
    assertThat(r.read(76 * 4096, 4096))
        .isEqualTo(Arrays.copyOfRange(im.data, 76 * 4096, 77 * 4096));
    assertThat(r.read(78 * 4096 + 5, 10))
        .isEqualTo(Arrays.copyOfRange(im.data, 78 * 4096 + 5, 78 * 4096 + 15));
  }

  @Test
  void aVerifiedHashBlockIsNotReadOrHashedAgainWhileCached() throws Exception {
    Image im = image(1000, 12, 12, 2, false, 9);
    DeviceWrapper.Counting counting = new DeviceWrapper.Counting(new MemoryDevice("hash", im.hash));
    AtomicLong hashReads = counting.reads;
    VerifiedReader r =
        VerifiedReader.open(
            im.params,
            new MemoryDevice("data", im.data),
            counting,
            im.root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS);
    r.read(0, im.data.length);
    long cold = hashReads.get();
    assertThat(cold).isEqualTo(MerkleLayout.dmVerity(im.params).hashBlocks());
    r.read(0, im.data.length);
    assertThat(hashReads.get()).isEqualTo(cold);
  }

  @Test
  void theCacheStaysWithinItsBound() throws Exception {
    Image im =
        image(
            4000, 9, 9, 2, false,
            11); // 512-byte hash blocks: 16 per level-0 block, 264 hash blocks
    VerifiedReader r = im.reader(8 * 512);
    for (long b = 0; b < 4000; b += 7) {
      r.read(b * 512, 512);
      assertThat(r.cacheStats().cachedBlocks()).isLessThanOrEqualTo(8);
    }
  }

  @Test
  void aTornReadIsRecheckedNotReportedAsCorruption() throws Exception {
    Image im = image(50, 12, 12, 2, false, 13);
    // The first read of block 20 returns garbage (as if the file were being copied in), the re-read
    // the real bytes.
    AtomicBoolean tornOnce = new AtomicBoolean(true);
    BlockDevice torn = new MemoryDevice("data", im.data);
    BlockDevice flaky =
        new BlockDevice() {
          @Override
          public String description() {
            return "data";
          }

          @Override
          public long size() throws java.io.IOException {
            return torn.size();
          }

          @Override
          public void readFully(long offset, ByteBuffer dst) throws java.io.IOException {
            int start = dst.position();
            torn.readFully(offset, dst);
            if (offset <= 20 * 4096
                && offset + (dst.position() - start) > 20 * 4096
                && tornOnce.getAndSet(false)) {
              dst.put(start + (int) (20 * 4096 - offset), (byte) 0x55);
            }
          }

          @Override
          public void close() {}
        };
    VerifiedReader r =
        VerifiedReader.open(
            im.params,
            flaky,
            new MemoryDevice("hash", im.hash),
            im.root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS);
    assertThat(r.read(0, 50 * 4096)).isEqualTo(im.data);
    assertThat(tornOnce).isFalse();
  }

  @Test
  void anIoErrorIsAnIoErrorNotCorruption() throws Exception {
    Image im = image(50, 12, 12, 2, false, 19);
    MemoryDevice good = new MemoryDevice("data", im.data);
    BlockDevice failing =
        new BlockDevice() {
          @Override
          public String description() {
            return "data";
          }

          @Override
          public long size() {
            return good.size();
          }

          @Override
          public void readFully(long offset, ByteBuffer dst) throws java.io.IOException {
            if (offset <= 30 * 4096 && offset + dst.remaining() > 30 * 4096) {
              throw new java.io.IOException("data: read error at block 30");
            }
            good.readFully(offset, dst);
          }

          @Override
          public void close() {}
        };
    VerifiedReader r =
        VerifiedReader.open(
            im.params,
            failing,
            new MemoryDevice("hash", im.hash),
            im.root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS);
    assertThatThrownBy(() -> r.read(29 * 4096, 3 * 4096))
        .isInstanceOf(java.io.IOException.class)
        .isNotInstanceOf(CorruptBlockException.class)
        .hasMessage("data: read error at block 30");
    assertThat(r.corruptionCount()).isZero();
    assertThat(r.status()).isEqualTo('V');
    assertThat(r.read(31 * 4096, 4096))
        .isEqualTo(Arrays.copyOfRange(im.data, 31 * 4096, 32 * 4096));
  }

  @Test
  void readsOutsideTheImageAreRefused() throws Exception {
    Image im = image(3, 12, 12, 2, false, 1);
    VerifiedReader r = im.reader(1 << 20);
    assertThatThrownBy(() -> r.read(3 * 4096 - 1, 2)).isInstanceOf(EOFException.class);
    assertThatThrownBy(() -> r.read(-1, 1)).isInstanceOf(EOFException.class);
    assertThat(r.read(3 * 4096, 0)).isEmpty();
  }

  /**
   * Eight threads read two images that share one cache (a one-block cache too), half through the
   * reader and half through a scheduler, while every 50th block of the first is corrupted mid-run:
   * no wrong byte is ever returned, and the second image, never corrupted, never fails.
   */
  @ParameterizedTest(name = "cache {0} bytes")
  @org.junit.jupiter.params.provider.ValueSource(longs = {1, 16 << 10, 256 << 10})
  void eightThreadsNeverSeeAWrongByteWhileCorruptionIsInjected(long cacheBytes) throws Exception {
    Image im = image(2000, 12, 12, 2, false, 17);
    Image other = image(3000, 10, 10, 0, true, 18); // sha1, 1 KiB blocks, format 0
    byte[] original = im.data.clone();
    MemoryDevice data = new MemoryDevice("data", im.data);
    HashBlockCache cache = new HashBlockCache(cacheBytes);
    VerifiedReader r =
        VerifiedReader.open(
            im.params,
            data,
            new MemoryDevice("hash", im.hash),
            im.root,
            cache,
            ReaderOptions.DEFAULTS);
    VerifiedReader r2 =
        VerifiedReader.open(
            other.params,
            new MemoryDevice("data2", other.data),
            new MemoryDevice("hash2", other.hash),
            other.root,
            cache,
            ReaderOptions.DEFAULTS);
    VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2));
    AtomicReference<Throwable> wrong = new AtomicReference<>();
    AtomicLong corruptions = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      long seed = t;
      boolean first = t % 2 == 0;
      VerifiedSource src = !first ? r2 : t % 4 == 0 ? r : s;
      byte[] expected = first ? original : other.data;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    for (int i = 0; i < 3000 && wrong.get() == null; i++) {
                      int length = 1 + rnd.nextInt(3 * 4096);
                      long offset = rnd.nextLong(expected.length - length + 1);
                      try {
                        byte[] got = src.read(offset, length);
                        if (!Arrays.equals(
                            got, 0, length, expected, (int) offset, (int) offset + length)) {
                          wrong.set(new AssertionError("wrong bytes at " + offset + "+" + length));
                        }
                      } catch (CorruptBlockException e) {
                        if (!first) {
                          wrong.set(e); // the second image is never corrupted
                        }
                        corruptions.incrementAndGet();
                      } catch (Throwable e) {
                        wrong.set(e);
                      }
                    }
                  }));
    }
    Thread.sleep(20);
    for (int b = 0; b < 2000; b += 50) { // corrupt every 50th data block mid-run
      data.writeFully(b * 4096L + 9, ByteBuffer.wrap(new byte[] {(byte) ~original[b * 4096 + 9]}));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(wrong.get()).isNull();
    assertThatThrownBy(() -> r.read(100 * 4096, 1)).isInstanceOf(CorruptBlockException.class);
    assertThat(r2.corruptionCount()).isZero();
    assertThat(cache.stats().images()).isEqualTo(2);
    s.close();
  }

  @org.junit.jupiter.api.Nested
  @org.junit.jupiter.api.DisplayName("corruption modes and dm-verity options")
  class Options {
    Image im;
    MemoryDevice data;
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    CorruptionListener listener =
        new CorruptionListener() {
          @Override
          public void corrupted(CorruptBlockException e) {
            events.add("corrupted " + e.block());
          }

          @Override
          public void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
            events.add("closed " + mode + " " + cause.block());
          }
        };

    @org.junit.jupiter.api.BeforeEach
    void corruptBlock5() throws Exception {
      im = image(64, 12, 12, 2, false, 21);
      data = new MemoryDevice("data", im.data);
      data.writeFully(5 * 4096 + 1, ByteBuffer.wrap(new byte[] {(byte) ~im.data[5 * 4096 + 1]}));
    }

    VerifiedReader reader(ReaderOptions o) throws Exception {
      return VerifiedReader.open(
          im.params,
          data,
          new MemoryDevice("hash", im.hash),
          im.root,
          new HashBlockCache(1 << 20),
          o.withListener(listener));
    }

    byte[] original(long block) {
      return Arrays.copyOfRange(im.data, (int) block * 4096, (int) (block + 1) * 4096);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("eio: that request fails, others go on; status turns C")
    void eioFailsOnlyTheRequest() throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS);
      assertThat(r.status()).isEqualTo('V');
      assertThatThrownBy(() -> r.read(5 * 4096, 4096)).isInstanceOf(CorruptBlockException.class);
      assertThat(r.read(6 * 4096, 4096)).isEqualTo(original(6));
      assertThat(r.status()).isEqualTo('C');
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(r.firstCorruptions()).extracting(CorruptBlockException::block).containsExactly(5L);
      assertThat(events).containsExactly("corrupted 5");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("ignore: logs, counts and returns the data as stored")
    void ignoreReturnsTheData() throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS.withMode(CorruptionMode.IGNORE));
      byte[] got = r.read(5 * 4096, 4096);
      assertThat(got[1]).isEqualTo((byte) ~im.data[5 * 4096 + 1]);
      assertThat(r.status()).isEqualTo('C');
      assertThat(events).containsExactly("corrupted 5");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(
        value = CorruptionMode.class,
        names = {"RESTART", "PANIC"})
    @org.junit.jupiter.api.DisplayName("restart and panic: fail closed, tell the owner once")
    void failClosed(CorruptionMode mode) throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS.withMode(mode));
      assertThat(r.read(0, 4096)).isEqualTo(original(0));
      assertThatThrownBy(() -> r.read(5 * 4096, 4096)).isInstanceOf(CorruptBlockException.class);
      assertThat(r.failedClosed()).isTrue();
      assertThatThrownBy(() -> r.read(0, 4096))
          .isInstanceOf(FailedClosedException.class)
          .hasMessageContaining(mode.name().toLowerCase() + "_on_corruption");
      assertThatThrownBy(() -> r.read(6 * 4096, 1)).isInstanceOf(FailedClosedException.class);
      assertThat(events).containsExactly("corrupted 5", "closed " + mode + " 5");
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "check_at_most_once: a block verified once is not hashed again")
    void checkAtMostOnce() throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS.withCheckAtMostOnce(true));
      assertThat(r.read(7 * 4096, 4096)).isEqualTo(original(7));
      data.writeFully(7 * 4096, ByteBuffer.wrap(new byte[] {(byte) ~im.data[7 * 4096]}));
      assertThat(r.read(7 * 4096, 4096)[0])
          .isEqualTo((byte) ~im.data[7 * 4096]); // as the kernel: not rechecked
      assertThatThrownBy(() -> r.read(5 * 4096, 4096)).isInstanceOf(CorruptBlockException.class);
      VerifiedReader fresh = reader(ReaderOptions.DEFAULTS);
      assertThatThrownBy(() -> fresh.read(7 * 4096, 4096))
          .isInstanceOf(CorruptBlockException.class);
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "blocks hashed together: a mismatch is its block's alone, the others are returned")
    void aMismatchInAGroupIsThatBlocksAlone() throws Exception {
      VerifiedReader ignoring =
          reader(ReaderOptions.DEFAULTS.withMode(CorruptionMode.IGNORE).withCheckAtMostOnce(true));
      byte[] got = ignoring.read(4 * 4096, 2 * 4096); // blocks 4 and 5: one pair
      assertThat(Arrays.copyOfRange(got, 0, 4096)).isEqualTo(original(4));
      assertThat(got[4096 + 1]).isEqualTo((byte) ~im.data[5 * 4096 + 1]);
      assertThat(ignoring.corruptionCount()).isEqualTo(1);
      assertThat(events).containsExactly("corrupted 5");
      byte[] all = ignoring.read(0, 64 * 4096); // block 4 marked checked, 5 not: counted again
      for (int b = 0; b < 64; b++) {
        if (b != 5) {
          assertThat(Arrays.copyOfRange(all, b * 4096, (b + 1) * 4096))
              .as("block %d", b)
              .isEqualTo(original(b));
        }
      }
      assertThat(events).containsExactly("corrupted 5", "corrupted 5");

      VerifiedReader strict = reader(ReaderOptions.DEFAULTS);
      byte[] dst = new byte[8 * 4096];
      Arrays.fill(dst, (byte) 1);
      assertThatThrownBy(() -> strict.read(0, dst, 0, dst.length))
          .isInstanceOf(CorruptBlockException.class)
          .hasMessage("data: data block 5 is corrupted");
      assertThat(Arrays.copyOfRange(dst, 0, 5 * 4096))
          .isEqualTo(Arrays.copyOfRange(im.data, 0, 5 * 4096));
      assertThat(Arrays.copyOfRange(dst, 5 * 4096, dst.length)).containsOnly(0);
      assertThat(strict.read(4 * 4096, 4096)).isEqualTo(original(4));
      assertThat(strict.read(6 * 4096, 2 * 4096))
          .isEqualTo(Arrays.copyOfRange(im.data, 6 * 4096, 8 * 4096));

      // Inline (hash blocks cached now): the pair's good block verifies, the bad one stops it.
      byte[] pair = new byte[2 * 4096];
      assertThat(strict.tryReadInline(4 * 4096, pair, 0, pair.length)).isEqualTo(4096);
      assertThat(Arrays.copyOfRange(pair, 0, 4096)).isEqualTo(original(4));
      assertThat(Arrays.copyOfRange(pair, 4096, pair.length)).containsOnly(0);
      assertThat(strict.tryReadInline(5 * 4096, pair, 0, pair.length)).isZero();
      assertThat(pair).containsOnly(0);
      assertThat(strict.corruptionCount()).isEqualTo(1); // the inline attempts counted none
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "a read of several blocks hashes them two at a time; one 4 KiB block stays one stream")
    void aMultiBlockReadHashesTwoAtATime() throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS);
      assertThat(r.read(32 * 4096, 4096)).isEqualTo(original(32)); // loads the path
      long before = org.jverity.hash.BlockHasher.sha256PairsHashed();
      assertThat(r.read(33 * 4096, 4096)).isEqualTo(original(33));
      assertThat(org.jverity.hash.BlockHasher.sha256PairsHashed()).isEqualTo(before);
      assertThat(r.read(16 * 4096, 16 * 4096))
          .isEqualTo(Arrays.copyOfRange(im.data, 16 * 4096, 32 * 4096));
      byte[] inline = new byte[2 * 4096];
      assertThat(r.tryReadInline(40 * 4096, inline, 0, inline.length)).isEqualTo(inline.length);
      assertThat(inline).isEqualTo(Arrays.copyOfRange(im.data, 40 * 4096, 42 * 4096));
      long pairs = org.jverity.hash.BlockHasher.sha256PairsHashed() - before;
      if (org.jverity.testing.TwoStreams.expected()) {
        assertThat(pairs).as("pairs: 8 of the 16-block read, 1 inline").isEqualTo(9);
      } else {
        assertThat(pairs).isZero();
      }
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "a cold read hashes its level-0 hash block with its data block; either's corruption is its own")
    void aColdReadHashesItsHashBlockWithItsDataBlock() throws Exception {
      VerifiedReader r = reader(ReaderOptions.DEFAULTS);
      long before = org.jverity.hash.BlockHasher.sha256PairsHashed();
      assertThat(r.read(7 * 4096, 4096)).isEqualTo(original(7)); // its hash block not verified yet
      long pairs = org.jverity.hash.BlockHasher.sha256PairsHashed() - before;
      assertThat(pairs).isEqualTo(org.jverity.testing.TwoStreams.expected() ? 1 : 0);
      VerifiedReader fresh = reader(ReaderOptions.DEFAULTS);
      assertThatThrownBy(() -> fresh.read(5 * 4096, 4096))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.area()).isEqualTo(Area.DATA));
      assertThat(fresh.read(6 * 4096, 4096)).isEqualTo(original(6));
      // One level: the hash device is the level-0 block; a digest in it flipped fails the block.
      byte[] badHash = im.hash.clone();
      badHash[9 * 32] ^= 1;
      VerifiedReader wrongTree =
          VerifiedReader.open(
              im.params,
              new MemoryDevice("data", im.data),
              new MemoryDevice("hash", badHash),
              im.root,
              new HashBlockCache(1 << 20),
              ReaderOptions.DEFAULTS);
      assertThatThrownBy(() -> wrongTree.read(9 * 4096, 4096))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.area()).isEqualTo(Area.HASH));
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "a group skips blocks checked once and zero blocks it ignores")
    void aGroupSkipsCheckedAndIgnoredZeroBlocks() throws Exception {
      System.arraycopy(new byte[4096], 0, im.data, 9 * 4096, 4096); // block 9 formatted as zeros
      MemoryDevice hash = new MemoryDevice("hash");
      byte[] root = TreeBuilder.of(im.params).build(new MemoryDevice("data", im.data), hash);
      MemoryDevice stored = new MemoryDevice("data", im.data.clone());
      stored.writeFully(9 * 4096 + 100, ByteBuffer.wrap(new byte[] {42}));
      VerifiedReader r =
          VerifiedReader.open(
              im.params,
              stored,
              hash,
              root,
              new HashBlockCache(1 << 20),
              ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true).withCheckAtMostOnce(true));
      assertThat(r.read(11 * 4096, 4096)).isEqualTo(original(11));
      stored.writeFully(11 * 4096, ByteBuffer.wrap(new byte[] {(byte) ~im.data[11 * 4096]}));
      byte[] got = r.read(8 * 4096, 6 * 4096); // 8, 9 (zeros), 10, 11 (checked once), 12, 13
      assertThat(Arrays.copyOfRange(got, 0, 4096)).isEqualTo(original(8));
      assertThat(Arrays.copyOfRange(got, 4096, 2 * 4096)).containsOnly(0);
      assertThat(Arrays.copyOfRange(got, 2 * 4096, 3 * 4096)).isEqualTo(original(10));
      assertThat(got[3 * 4096]).isEqualTo((byte) ~im.data[11 * 4096]); // as the kernel: not again
      assertThat(Arrays.copyOfRange(got, 4 * 4096, 6 * 4096))
          .isEqualTo(Arrays.copyOfRange(im.data, 12 * 4096, 14 * 4096));
      assertThat(r.corruptionCount()).isZero();
    }

    @Test
    @org.junit.jupiter.api.DisplayName(
        "ignore_zero_blocks: a zero block reads as zeros whatever is stored")
    void ignoreZeroBlocks() throws Exception {
      System.arraycopy(
          new byte[4096], 0, im.data, 9 * 4096, 4096); // block 9 is zeros when formatted
      MemoryDevice hash = new MemoryDevice("hash");
      byte[] root = TreeBuilder.of(im.params).build(new MemoryDevice("data", im.data), hash);
      MemoryDevice stored = new MemoryDevice("data", im.data);
      stored.writeFully(9 * 4096 + 100, ByteBuffer.wrap(new byte[] {42}));
      VerifiedReader ignoring =
          VerifiedReader.open(
              im.params,
              stored,
              hash,
              root,
              new HashBlockCache(1 << 20),
              ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true));
      assertThat(ignoring.read(9 * 4096, 4096)).containsOnly(0);
      assertThat(ignoring.read(8 * 4096, 4096)).isEqualTo(original(8));
      VerifiedReader strict =
          VerifiedReader.open(
              im.params, stored, hash, root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS);
      assertThatThrownBy(() -> strict.read(9 * 4096, 4096))
          .isInstanceOf(CorruptBlockException.class);
    }
  }

  /**
   * Every exit path zeroes what did not verify: an I/O error mid-request leaves no device bytes.
   */
  @Test
  void anIoErrorMidRequestLeavesOnlyVerifiedBytesOrZeros() throws Exception {
    TestImage im = TestImage.random(256, BS, 13);
    var failing = new DeviceWrapper.Failing(im.dataDevice(), 100L * BS, 101L * BS);
    try (VerifiedReader r = Readers.open(im, failing, im.hashDevice(), ReaderOptions.DEFAULTS)) {
      byte[] dst = new byte[256 * BS];
      Arrays.fill(dst, (byte) 0x55);
      assertThatThrownBy(() -> r.read(0, dst, 0, dst.length)).isInstanceOf(IOException.class);
      for (int at = 0; at < dst.length; at += BS) {
        byte[] got = Arrays.copyOfRange(dst, at, at + BS);
        assertThat(
                Arrays.equals(got, new byte[BS])
                    || Arrays.equals(got, Arrays.copyOfRange(im.data(), at, at + BS)))
            .as("block %d", at / BS)
            .isTrue();
      }
      assertThat(r.corruptionCount()).isZero();
    }
  }
}
