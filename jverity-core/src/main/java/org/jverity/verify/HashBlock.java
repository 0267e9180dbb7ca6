package org.jverity.verify;

/**
 * One cached hash block. Its bytes never change once loaded. {@code verified} only goes from false
 * to true: two threads racing to verify the same block both hash it and both set the flag, which
 * costs a hash but is harmless (as in the kernel's dm-bufio aux data).
 */
final class HashBlock {
  final long index; // hash block number on the hash device
  final byte[] bytes; // hash block size
  private volatile boolean verified;
  volatile boolean referenced; // CLOCK bit: set on every hit, cleared by the eviction sweep

  HashBlock(long index, byte[] bytes) {
    this.index = index;
    this.bytes = bytes;
  }

  boolean verified() {
    return verified;
  }

  void markVerified() {
    verified = true;
  }
}
