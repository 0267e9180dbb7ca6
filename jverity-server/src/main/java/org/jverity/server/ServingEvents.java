package org.jverity.server;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jverity.text.Json;

/**
 * What {@code open --json} and {@code serve --json} print on stdout instead of the bare URIs: one
 * JSON object a line, so that a supervisor reads each as it comes, without waiting for the end.
 * {@code {"event":"listening","export":"NAME","uri":"nbd://..."}} per export, once the server
 * listens; a failure ends the stream with {@link JsonOutput}'s one-line failure object. Stateless.
 */
public final class ServingEvents {
  private ServingEvents() {}

  /** The line saying clients can now reach {@code export} at {@code uri}. */
  public static String listening(String export, String uri) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", "listening");
    m.put("export", export);
    m.put("uri", uri);
    return Json.line(m);
  }
}
