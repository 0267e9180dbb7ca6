package org.jverity.tree;

/**
 * Where a digest lives on the hash device.
 *
 * @param hashBlock index of the hash block on the hash device, in hash blocks from its start
 * @param offset byte offset of the digest inside that hash block
 */
public record HashLocation(long hashBlock, int offset) {}
