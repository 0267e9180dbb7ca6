/** dm-verity formats, geometry, tree builder and checker. Depends on java.base only. */
module org.jverity.core {
  exports org.jverity.fec;
  exports org.jverity.format;
  exports org.jverity.fsverity;
  exports org.jverity.hash;
  exports org.jverity.image;
  exports org.jverity.io;
  exports org.jverity.tree;
  exports org.jverity.verify;
}
