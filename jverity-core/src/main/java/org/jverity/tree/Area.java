package org.jverity.tree;

/** Which part of a verity image a block belongs to, as the kernel reports it (data or metadata). */
public enum Area {
  DATA,
  HASH;

  @Override
  public String toString() {
    return this == DATA ? "data" : "hash";
  }
}
