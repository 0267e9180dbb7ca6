/**
 * A read-only NBD server over verified images. Depends on the core, jverity-sig for PEM keys and
 * certificates (TLS; it brings BouncyCastle) and the Prometheus Java client for metrics.
 */
module org.jverity.nbd {
  requires org.jverity.core;
  requires org.jverity.sig; // Pem
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.model;
  requires io.prometheus.metrics.exporter.httpserver;
  requires jdk.httpserver; // the exporter's server

  exports org.jverity.nbd;
}
