/** A read-only NBD server over verified images. Depends on the core only. */
module org.jverity.nbd {
  requires org.jverity.core;

  exports org.jverity.nbd;
}
