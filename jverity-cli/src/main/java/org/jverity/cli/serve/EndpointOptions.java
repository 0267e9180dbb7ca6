package org.jverity.cli.serve;

import java.nio.file.Path;
import java.time.Duration;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.syntax.Port;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.TimeSpan;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.server.status.RuntimeDir;
import org.jverity.verify.HashBlockCache;

/**
 * The server-wide settings: where and how the server listens, its cache, limits, status sockets,
 * TLS and metrics. Declared once: {@code open} takes them as options, {@code serve} as the keys of
 * its {@code [generic]} section ({@link #KEYS}). Filled by the parser, then read once.
 */
final class EndpointOptions {
  String bind = "127.0.0.1";
  int port = Port.NBD;
  Path socket;
  long cacheSize = HashBlockCache.DEFAULT_CAPACITY_BYTES;
  Integer maxConnections;
  Duration idleTimeout;
  Integer maxInFlight;
  Path runtimeDir;
  String tls;
  Path tlsCertificates;
  boolean tlsVerifyPeer;
  Integer metricsPort;
  String metricsBind;

  /** {@code serve}'s [generic] only: the remote settings an export section does not give. */
  final RemoteArguments remote = new RemoteArguments();

  /** Where it listens. */
  static final Syntax<EndpointOptions> LISTEN =
      Syntax.<EndpointOptions>group()
          .option(
              "--bind", "ADDR", "Address to listen on (default 127.0.0.1).", (c, v) -> c.bind = v)
          .option(
              "--port",
              "N",
              "TCP port (default 10809; 0: any free port, printed in the URI).",
              (c, v) -> c.port = Port.parse(v))
          .file(
              "--socket",
              "PATH",
              "Listen on a Unix socket instead of TCP.",
              (c, p) -> c.socket = p);

  /** The hash block cache, shared by every export. */
  static final Syntax<EndpointOptions> CACHE =
      Syntax.<EndpointOptions>group()
          .option(
              "--cache-size",
              "BYTES",
              "Hash block cache size (default "
                  + (HashBlockCache.DEFAULT_CAPACITY_BYTES >> 20)
                  + "M); bin/jverity sizes the heap from it.",
              (c, v) -> c.cacheSize = ByteSize.parse(v));

  /** Its limits and where its status sockets go. */
  static final Syntax<EndpointOptions> LIMITS =
      Syntax.<EndpointOptions>group()
          .option(
              "--max-connections",
              "N",
              "Connections open at once (default 4096).",
              (c, v) -> c.maxConnections = WholeNumber.parseInt(v))
          .option(
              "--idle-timeout",
              "TIME",
              "Close a connection silent this long: seconds, or with ms, s, m, h (default 0: never).",
              (c, v) -> c.idleTimeout = TimeSpan.parse(v))
          .option(
              "--max-in-flight",
              "N",
              "Requests in flight per connection (default 64).",
              (c, v) -> c.maxInFlight = WholeNumber.parseInt(v))
          .file(
              "--runtime-dir",
              "DIR",
              "Where the status socket goes (default " + RuntimeDir.DEFAULTS + ").",
              (c, p) -> c.runtimeDir = p);

  /** TLS and the Prometheus endpoint. */
  static final Syntax<EndpointOptions> TLS_AND_METRICS =
      Syntax.<EndpointOptions>group()
          .option("--tls", "MODE", "off (default), on (offered) or require.", (c, v) -> c.tls = v)
          .file(
              "--tls-certificates",
              "DIR",
              "nbdkit's layout: server-cert.pem, server-key.pem, ca-cert.pem (default $HOME/.pki/nbdkit or /etc/pki/nbdkit).",
              (c, p) -> c.tlsCertificates = p)
          .flag(
              "--tls-verify-peer",
              "Clients must present a certificate signed by ca-cert.pem.",
              c -> c.tlsVerifyPeer = true)
          .option(
              "--metrics-port",
              "N",
              "Serve Prometheus metrics on this port (/metrics).",
              (c, v) -> c.metricsPort = WholeNumber.parseInt(v))
          .option(
              "--metrics-bind",
              "ADDR",
              "Address of the metrics endpoint (default 127.0.0.1).",
              (c, v) -> c.metricsBind = v);

  /**
   * All of them, as {@code serve}'s {@code [generic]} section takes them, in {@code open}'s order.
   */
  static final Syntax<EndpointOptions> KEYS =
      Syntax.<EndpointOptions>group()
          .include(LISTEN, c -> c)
          .include(CACHE, c -> c)
          .include(LIMITS, c -> c)
          .include(TLS_AND_METRICS, c -> c)
          .include(RemoteArguments.SYNTAX, c -> c.remote);
}
