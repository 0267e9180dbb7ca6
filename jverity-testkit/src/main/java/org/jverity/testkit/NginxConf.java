package org.jverity.testkit;

import java.nio.file.Path;

/**
 * {@link Nginx}'s configuration: the {@code rng} access log of REMOTE.md (with the method), the
 * plain location and the fault locations over the same files. Faults are counted per location in a
 * shared dictionary, so "the first of every N" holds across connections (one worker process). The
 * worker runs as the test's user (nginx ignores {@code user} unless started as root, and as root
 * its default, nobody, could not read a test's private temporary directory).
 */
final class NginxConf {
  private NginxConf() {}

  /** Lua: whether this request is the first of every {@code every} of counter {@code key}. */
  private static String nth(String key, int every) {
    return "("
        + every
        + " > 0 and (ngx.shared.faults:incr(\""
        + key
        + "\", 1, 0) - 1) % "
        + every
        + " == 0)";
  }

  /**
   * Lua serving {@code bytes=a-b} of the file itself: its Content-Range shifted by {@code shift}
   * bytes, its body {@code extra} bytes longer than the range (and its Content-Length saying so).
   */
  private static String range(int shift, int extra) {
    return """
        local f = io.open(ngx.var.request_filename, "rb")
                if not f then return ngx.exit(404) end
                local size = f:seek("end")
                local a, b = (ngx.var.http_range or ""):match("^bytes=(%d+)-(%d+)$")
                if not a then
                  ngx.header["Content-Length"] = size
                  if ngx.req.get_method() == "GET" then f:seek("set", 0); ngx.print(f:read("*a")) end
                  f:close()
                  return
                end
                a = tonumber(a); b = math.min(tonumber(b), size - 1)
                f:seek("set", a)
                local body = f:read(b - a + 1) .. string.rep("x", EXTRA)
                f:close()
                ngx.status = 206
                ngx.header["Content-Length"] = #body
                ngx.header["Content-Range"] = "bytes " .. (a + SHIFT) .. "-" .. (b + SHIFT) .. "/" .. size
                if ngx.req.get_method() == "GET" then ngx.print(body) end"""
        .replace("SHIFT", Integer.toString(shift))
        .replace("EXTRA", Integer.toString(extra));
  }

  static String text(Path dir, int httpPort, int httpsPort, Nginx.Faults f) {
    String www = dir.resolve("www").toAbsolutePath() + "/";
    return """
        load_module /usr/lib/nginx/modules/ndk_http_module.so;
        load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
        user USER;
        worker_processes 1;
        pid DIR/nginx.pid;
        error_log DIR/error.log warn;
        events { worker_connections 1024; }
        http {
          log_format rng '$msec $status $body_bytes_sent $request_time "$http_range" $request_method $uri $server_protocol';
          access_log DIR/access.log rng;
          client_body_temp_path DIR/tmp; proxy_temp_path DIR/tmp; fastcgi_temp_path DIR/tmp;
          uwsgi_temp_path DIR/tmp; scgi_temp_path DIR/tmp;
          lua_shared_dict faults 1m;
          sendfile on; tcp_nopush on;
          keepalive_timeout 75s; keepalive_requests 100000;
          default_type application/octet-stream;
          server {
            listen 127.0.0.1:HTTP;
            listen 127.0.0.1:HTTPS ssl http2;
            ssl_certificate DIR/cert.pem; ssl_certificate_key DIR/key.pem;
            root WWW;
            location / { }
            location /slow/ { alias WWW; access_by_lua_block { ngx.sleep(SLOW / 1000) } }
            location /flaky/ { alias WWW;
              access_by_lua_block {
                local seen = "seen " .. ngx.req.get_method() .. " " .. ngx.var.uri .. " " .. (ngx.var.http_range or "-")
                local first = ngx.shared.faults:incr(seen, 1, 0) == 1
                if first and FLAKY503 then return ngx.exit(503) end
                if first and FLAKYDROP then return ngx.exit(444) end
              }
            }
            location /trunc/ { alias WWW; sendfile off; keepalive_timeout 0;
              header_filter_by_lua_block {
                local seen = "seen GET " .. ngx.var.uri .. " " .. (ngx.var.http_range or "-")
                local get = ngx.req.get_method() == "GET"
                local first = get and ngx.shared.faults:incr(seen, 1, 0) == 1
                ngx.ctx.cut = get and (EVERYGET or (first and TRUNC))
              }
              body_filter_by_lua_block {
                if not ngx.ctx.cut then return end
                local chunk = ngx.arg[1]
                local sent = ngx.ctx.sent or 0
                if sent + #chunk >= TRUNCAFTER then
                  ngx.arg[1] = chunk:sub(1, TRUNCAFTER - sent)
                  ngx.arg[2] = true
                end
                ngx.ctx.sent = sent + #ngx.arg[1]
              }
            }
            location /corrupt/ { alias WWW; sendfile off;
              header_filter_by_lua_block {
                ngx.ctx.flip = ngx.req.get_method() == "GET" and CORRUPT
                local first = ngx.var.http_range and ngx.var.http_range:match("^bytes=(%d+)-")
                ngx.ctx.pos = (ngx.status == 206 and tonumber(first)) or 0
              }
              body_filter_by_lua_block {
                local chunk = ngx.arg[1]
                local pos = ngx.ctx.pos
                local at = CORRUPTAT
                if ngx.ctx.flip and at >= pos and at < pos + #chunk then
                  local i = at - pos + 1
                  ngx.arg[1] = chunk:sub(1, i - 1) .. string.char(bit.bxor(chunk:byte(i), 1))
                      .. chunk:sub(i + 1)
                end
                ngx.ctx.pos = pos + #chunk
              }
            }
            location /norange/ { alias WWW; max_ranges 0; }
            # nginx's range filter runs after lua's header filter, so these two serve the range
            # themselves: /badrange/ announces it one byte off, /longbody/ sends one byte more.
            location /badrange/ { alias WWW; content_by_lua_block { RANGE(1, 0) } }
            location /longbody/ { alias WWW; content_by_lua_block { RANGE(0, 1) } }
            location /slowdown/ { alias WWW;
              access_by_lua_block {
                if ngx.req.get_method() ~= "GET" then return end
                ngx.status = 503
                ngx.header["Content-Type"] = "application/xml"
                ngx.print('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
                    .. "<Message>Please reduce your request rate.</Message></Error>")
                return ngx.exit(503)
              }
            }
            location /expired/ { alias WWW;
              access_by_lua_block {
                if ngx.req.get_method() == "GET" and ngx.var.http_x_token ~= "fresh" then
                  ngx.status = 400
                  ngx.header["Content-Type"] = "application/xml"
                  ngx.print("<Error><Code>ExpiredToken</Code>"
                      .. "<Message>The provided token has expired.</Message></Error>")
                  return ngx.exit(400)
                end
              }
            }
            location /redirect/ { rewrite ^/redirect/(.*)$ /$1 redirect; }
            location /loop/ { rewrite ^ $uri redirect; }
            location /nohead/ { alias WWW; if ($request_method = HEAD) { return 403; } }
          }
        }
        """
        .replace("RANGE(1, 0)", range(1, 0))
        .replace("RANGE(0, 1)", range(0, 1))
        .replace("FLAKY503", nth("flaky503", f.flaky503Every()))
        .replace("FLAKYDROP", nth("flakydrop", f.flakyDropEvery()))
        .replace("TRUNCAFTER", Long.toString(f.truncateAfter()))
        .replace("EVERYGET", f.truncateEvery() == 1 ? "true" : "false")
        .replace("TRUNC", nth("trunc", f.truncateEvery()))
        .replace("CORRUPTAT", Long.toString(f.corruptAt()))
        .replace("CORRUPT", nth("corrupt", f.corruptEvery()))
        .replace("SLOW", Integer.toString(f.slowMillis()))
        .replace("HTTPS", Integer.toString(httpsPort))
        .replace("HTTP", Integer.toString(httpPort))
        .replace("USER", System.getProperty("user.name"))
        .replace("WWW", www)
        .replace("DIR", dir.toAbsolutePath().toString());
  }
}
