/**
 * A read-only NBD server over verified images. Depends on the core only: TLS from PEM files and
 * Prometheus metrics are jverity-server's.
 */
module org.jverity.nbd {
  requires org.jverity.core;

  exports org.jverity.nbd;
}
