/**
 * A read-only NBD server over verified images. Depends on the core, BouncyCastle for PEM keys (TLS)
 * and the Prometheus Java client for metrics.
 */
module org.jverity.nbd {
  requires org.jverity.core;
  requires org.bouncycastle.pkix; // PEMParser, JcaPEMKeyConverter
  requires org.bouncycastle.provider; // PrivateKeyInfo
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.model;
  requires io.prometheus.metrics.exporter.httpserver;
  requires jdk.httpserver; // the exporter's server

  exports org.jverity.nbd;
}
