/**
 * The NBD daemon around jverity-nbd: where it listens, TLS from PEM files (jverity-sig, which
 * brings BouncyCastle), Prometheus metrics, the status sockets in the runtime directory, the server
 * log. Grouped by runtime role: {@code status} (the status sockets and the runtime directory),
 * {@code process} (signals, pid file, parent watch, socket activation, a captive command), {@code
 * metrics} (Prometheus). Kept out of jverity-nbd so that the protocol embeds with the core alone.
 */
module org.jverity.server {
  requires org.jverity.core;
  requires transitive org.jverity.nbd;
  requires org.jverity.sig; // Pem
  requires transitive org.jverity.remote; // devices at a URL, only when a location is one
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.model;
  requires io.prometheus.metrics.exporter.httpserver;
  requires jdk.httpserver; // the exporter's server
  requires jdk.net; // PeerCheck: SO_PEERCRED
  requires jdk.unsupported; // SighupReload: sun.misc.Signal

  exports org.jverity.server;
  exports org.jverity.server.process; // the command line's JvmProcess, socket activation
  exports org.jverity.server.status; // jverity status, close, reload: the status sockets
}
