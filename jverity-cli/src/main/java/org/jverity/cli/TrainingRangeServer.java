package org.jverity.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The smallest HTTP/1.1 origin the AOT training can read an image from: on a loopback port, the
 * files of one folder by name, {@code GET} with one {@code Range: bytes=A-B} answered 206 with
 * {@code Content-Range} and an {@code ETag}, keep-alive. It serves only the training's own files,
 * so that the cache holds the classes and profiles of the remote path (the JDK's HTTP client,
 * {@code RemoteDevice}) without a real server; it is no general server (no HEAD-less clients'
 * niceties, no suffix ranges, no TLS).
 */
final class TrainingRangeServer implements AutoCloseable {
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
  private final Path dir;
  private final ServerSocket socket;

  /** Serves {@code dir}'s files on a free loopback port. */
  TrainingRangeServer(Path dir) throws IOException {
    this.dir = dir;
    this.socket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("training-http").start(this::accept);
  }

  /** The URL of {@code name} in the folder. */
  String url(String name) {
    return "http://127.0.0.1:" + socket.getLocalPort() + "/" + name;
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        Thread.ofVirtual().name("training-http-conn").start(() -> serve(s));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream()) {
      while (true) {
        String line = line(in);
        if (line == null || line.isEmpty()) {
          return;
        }
        String[] request = line.split(" ");
        String range = null;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
          if (h.toLowerCase(Locale.ROOT).startsWith("range:")) {
            range = h.substring("range:".length()).trim();
          }
        }
        respond(request, range, out);
        out.flush();
      }
    } catch (IOException e) {
      // the client went away: nothing to do
    }
  }

  private void respond(String[] request, String range, OutputStream out) throws IOException {
    Path file = request.length == 3 ? file(request[1]) : null;
    if (file == null) {
      out.write(head("404 Not Found", "Content-Length: 0"));
      return;
    }
    long size = Files.size(file);
    String etag = "ETag: \"" + Long.toHexString(Files.getLastModifiedTime(file).toMillis()) + "\"";
    Matcher m = range == null ? null : RANGE.matcher(range);
    if (m == null || !m.matches()) {
      out.write(head("200 OK", etag, "Content-Length: " + size));
      if (request[0].equals("GET")) {
        copy(file, 0, size, out);
      }
      return;
    }
    long first = Long.parseLong(m.group(1));
    long last = Math.min(Long.parseLong(m.group(2)), size - 1);
    if (first >= size || last < first) {
      out.write(
          head("416 Range Not Satisfiable", "Content-Range: bytes */" + size, "Content-Length: 0"));
      return;
    }
    out.write(
        head(
            "206 Partial Content",
            etag,
            "Content-Range: bytes " + first + "-" + last + "/" + size,
            "Content-Length: " + (last - first + 1)));
    copy(file, first, last - first + 1, out);
  }

  /** A file directly in the folder, by the request's path; null for anything else. */
  private Path file(String target) {
    String name = URI.create(target).getPath();
    if (name == null || !name.startsWith("/") || name.indexOf('/', 1) >= 0) {
      return null;
    }
    Path f = dir.resolve(name.substring(1));
    return f.getParent().equals(dir) && Files.isRegularFile(f) ? f : null;
  }

  private static byte[] head(String status, String... headers) {
    StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
    for (String h : headers) {
      b.append(h).append("\r\n");
    }
    return b.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static void copy(Path file, long offset, long length, OutputStream out)
      throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      ch.transferTo(offset, length, Channels.newChannel(out));
    }
  }

  /** One header line without its CRLF; null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
