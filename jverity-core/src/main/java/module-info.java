/**
 * dm-verity and fs-verity: formats, hashing, geometry, tree builder and checker, the verified
 * reader. Depends on java.base only; the hashes veritysetup takes beyond SHA-1, SHA-2 and SHA-3
 * come from the {@code jverity-hashes} module, which registers them with {@code hash}.
 */
module org.jverity.core {
  exports org.jverity.fec;
  exports org.jverity.format;
  exports org.jverity.fsverity;
  exports org.jverity.hash;
  exports org.jverity.image;
  exports org.jverity.io;
  exports org.jverity.text;
  // The C library bound once: the server's socket activation moves descriptors through it.
  exports org.jverity.posix to
      org.jverity.server;
  exports org.jverity.tree;
  exports org.jverity.verify;
}
