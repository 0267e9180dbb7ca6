package org.jverity.verify;

/**
 * One cached hash block of one image ({@link CacheSpace}). Its bytes never change once loaded: a
 * block found bad is replaced in the cache by a new instance, never rewritten, so a reader still
 * holding the old one sees consistent bytes.
 *
 * <p>{@code verified} means "these bytes matched their parent digest, which chains to the root hash
 * of the space this block belongs to, and hold nothing but zeros where the format pads"; a space is
 * bound to one root hash, so the flag cannot be taken for another root's. It only goes from false
 * to true: two threads racing to verify the same block both hash it and both set it, which costs a
 * hash and is harmless (the kernel's dm-bufio aux data works the same way).
 */
final class HashBlock {
  final CacheSpace space; // the image this block belongs to
  final long index; // hash block number on the hash device
  final byte[] bytes; // one hash block
  private volatile boolean verified;
  volatile boolean referenced; // CLOCK bit: set on a hit, cleared by the eviction sweep

  HashBlock(CacheSpace space, long index, byte[] bytes, boolean verified) {
    this.space = space;
    this.index = index;
    this.bytes = bytes;
    this.verified = verified;
  }

  boolean verified() {
    return verified;
  }

  void markVerified() {
    verified = true;
  }
}
