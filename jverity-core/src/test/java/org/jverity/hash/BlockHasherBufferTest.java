package org.jverity.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run of blocks in a {@link ByteBuffer} is the buffer's own bytes, indexed as {@link
 * ByteBuffer#get(int)} indexes them: from 0 to its limit, whatever array or memory lies around a
 * slice or a view. A run outside them is refused with {@link IndexOutOfBoundsException} before any
 * digest is written, by the native loop and in Java alike.
 */
class BlockHasherBufferTest {
  private static final byte[] SALT = new byte[32];
  private static final BlockHasher NATIVE = BlockHasher.saltBefore(HashAlgorithm.SHA256, SALT);
  private static final List<BlockHasher> BOTH = List.of(NATIVE, NATIVE.inJava());

  /** The shapes a caller's buffer comes in, each over the same bytes as its array. */
  private static final List<Function<byte[], ByteBuffer>> SHAPES =
      List.of(
          ByteBuffer::wrap,
          b -> ByteBuffer.wrap(b).asReadOnlyBuffer(),
          b -> ByteBuffer.allocateDirect(b.length).put(0, b),
          b -> ByteBuffer.allocateDirect(b.length).put(0, b).asReadOnlyBuffer());

  private static void assertRefused(ByteBuffer blocks, int off, int blockSize, int count) {
    for (BlockHasher h : BOTH) {
      byte[] out = new byte[32 * Math.max(count, 1)];
      assertThatThrownBy(() -> h.hashBlocks(blocks, off, blockSize, count, out, 0, 32))
          .as("%s, run at %d of %d blocks of %d", blocks, off, count, blockSize)
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(out).containsOnly(0);
    }
  }

  @Test
  void aViewOfAHeapBufferEndsWhereTheViewEnds() {
    ByteBuffer array = ByteBuffer.allocate(3 * 4096);
    assertRefused(array.slice(0, 100), 0, 4096, 1); // the 100-byte view
    assertRefused(array.slice(4096, 4096), 0, 4096, 2);
    assertRefused(array.duplicate().limit(100), 0, 4096, 1);
    assertRefused(array.duplicate().position(4096).slice().limit(4095), 0, 4096, 1);
  }

  @Test
  void aNegativeOffsetNeverReadsBeforeASlice() {
    assertRefused(ByteBuffer.allocate(3 * 4096).slice(4096, 8192), -1, 4096, 1);
    assertRefused(ByteBuffer.allocate(3 * 4096).slice(4096, 8192), -4096, 4096, 1);
    assertRefused(ByteBuffer.allocateDirect(3 * 4096).slice(4096, 8192), -4096, 4096, 1);
    assertRefused(ByteBuffer.allocate(8192), Integer.MIN_VALUE, 4096, 1);
  }

  @Test
  void anOffsetAndLengthThatOverflowAreRefused() {
    assertRefused(ByteBuffer.allocate(8192), Integer.MAX_VALUE - 10, 4096, 1);
    assertRefused(ByteBuffer.allocateDirect(8192), Integer.MAX_VALUE - 10, 4096, 1);
    assertRefused(ByteBuffer.allocate(8192), 4096, 1 << 20, 1 << 12); // 2^32 bytes: int wraps to 0
    assertRefused(ByteBuffer.allocateDirect(8192), 4096, 1 << 20, 1 << 12);
  }

  @Test
  void aDirectBufferEndsAtItsLimitNotItsCapacity() {
    assertRefused(ByteBuffer.allocateDirect(8192).limit(100), 0, 4096, 1);
    assertRefused(ByteBuffer.allocateDirect(8192).limit(4096), 0, 4096, 2);
    assertRefused(ByteBuffer.allocateDirect(3 * 4096).slice(4096, 4096), 0, 4096, 2);
  }

  @Test
  void aReadOnlyHeapBufferIsHashedLikeItsArray() {
    byte[] data = new byte[2 * 4096];
    new SplittableRandom(1).nextBytes(data);
    byte[] expected = new byte[64];
    NATIVE.hashBlocks(data, 0, 4096, 2, expected, 0, 32);
    for (BlockHasher h : BOTH) {
      byte[] out = new byte[64];
      h.hashBlocks(ByteBuffer.wrap(data).asReadOnlyBuffer(), 0, 4096, 2, out, 0, 32);
      assertThat(out).isEqualTo(expected);
    }
  }

  /**
   * A mapped file can shrink under its mapping: its run is hashed in Java, where the JDK turns the
   * fault into an error, never by the native loop, where the fault would end the JVM.
   */
  @Test
  void aMappedFileThatShrankFailsTheRunInsteadOfTheJvm(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("blocks");
    Files.write(file, new byte[4 * 4096]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 4 * 4096);
      byte[] out = new byte[4 * 32];
      NATIVE.hashBlocks(mapped, 0, 4096, 4, out, 0, 32);
      assertThat(out).isEqualTo(digests(new byte[4 * 4096], 4));
      ch.truncate(0);
      for (BlockHasher h : BOTH) {
        assertThatThrownBy(() -> h.hashBlocks(mapped, 0, 4096, 4, new byte[4 * 32], 0, 32))
            .isInstanceOf(InternalError.class); // "a fault occurred in an unsafe memory access"
        assertThatThrownBy(() -> h.hashBlocks(mapped.slice(4096, 4096), 0, 4096, 1, out, 0, 32))
            .isInstanceOf(InternalError.class);
        byte[] block = new byte[4096]; // the failed run left nothing in the hasher's digest
        new SplittableRandom(2).nextBytes(block);
        byte[] digest = new byte[32];
        h.hash(ByteBuffer.wrap(block).asReadOnlyBuffer(), digest, 0);
        assertThat(digest).isEqualTo(NATIVE.inJava().hash(block, 0, 4096));
      }
    }
  }

  private static byte[] digests(byte[] blocks, int count) {
    byte[] out = new byte[count * 32];
    NATIVE.inJava().hashBlocks(blocks, 0, blocks.length / count, count, out, 0, 32);
    return out;
  }

  /**
   * Hashing a run of a view (a slice at any index, any position set) gives the digests of a copy of
   * the view's bytes, in every shape of buffer, and leaves the view's position and limit alone.
   */
  @Property(tries = 300)
  void aViewHashesAsACopyOfItsBytes(
      @ForAll @IntRange(min = 0, max = 3) int shape,
      @ForAll boolean inJava,
      @ForAll @IntRange(min = 0, max = 5000) int sliceAt,
      @ForAll @IntRange(min = 0, max = 4) int count,
      @ForAll @IntRange(min = 0, max = 2) int blockSizeIndex,
      @ForAll @IntRange(min = 0, max = 700) int off,
      @ForAll @IntRange(min = 0, max = 700) int slack,
      @ForAll long seed) {
    int blockSize = new int[] {512, 1024, 4096}[blockSizeIndex];
    int viewLength = off + blockSize * count + slack;
    byte[] backing = new byte[sliceAt + viewLength + 300];
    new SplittableRandom(seed).nextBytes(backing);
    ByteBuffer view = SHAPES.get(shape).apply(backing).slice(sliceAt, viewLength);
    view.position(Math.min(slack, viewLength)); // a position the run ignores
    int position = view.position();
    byte[] copy = Arrays.copyOfRange(backing, sliceAt, sliceAt + viewLength);
    BlockHasher h = inJava ? NATIVE.inJava() : NATIVE;

    byte[] expected = new byte[count * 32 + 5];
    NATIVE.inJava().hashBlocks(copy, off, blockSize, count, expected, 5, 32);
    byte[] out = new byte[count * 32 + 5];
    h.hashBlocks(view, off, blockSize, count, out, 5, 32);
    assertThat(out).isEqualTo(expected);
    assertThat(view.position()).isEqualTo(position);
    assertThat(view.limit()).isEqualTo(viewLength);

    if (count > 0) { // one byte more than the view holds is refused, by the same shapes
      int past = viewLength - blockSize * count + 1;
      assertThatThrownBy(() -> h.hashBlocks(view, past, blockSize, count, out, 5, 32))
          .isInstanceOf(IndexOutOfBoundsException.class);
    }
  }
}
