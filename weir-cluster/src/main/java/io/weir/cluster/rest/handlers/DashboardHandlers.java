package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestHandler;
import io.weir.cluster.rest.RestRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web dashboard (module {@code weir-dashboard}): {@code GET /} answers its page and {@code GET
 * /assets/:file} its scripts and styles, read from the class path under {@link #ROOT}. A client
 * names only a file name of the assets directory, of a known type: never a path, so nothing else
 * can be read. The dashboard routes on the URL's fragment ({@code /#/jobs/...}), so every other
 * path stays the API's.
 */
final class DashboardHandlers {

  /** Where the dashboard's built files are, on the class path. */
  static final String ROOT = "io/weir/dashboard/web/";

  /** A file name of the assets directory: no separator, no leading dot, so no {@code ..}. */
  private static final Pattern ASSET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private static final Map<String, String> TYPES =
      Map.of(
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png",
          "woff2", "font/woff2",
          "map", "application/json");

  /** The files read so far: they are part of this build and never change. */
  private static final Map<String, RestHandler.Content> CACHE = new ConcurrentHashMap<>();

  private DashboardHandlers() {}

  /** {@code GET /}: the dashboard's page; never cached, so a new build's assets are picked up. */
  static final class Index extends AbstractRestHandler {
    Index() {
      super(HttpMethod.GET, "/");
    }

    @Override
    public RestHandler.Content handle(RestRequest request) {
      return read("index.html", "text/html; charset=utf-8", "no-cache");
    }
  }

  /** {@code GET /assets/:file}: a script or style sheet; its name holds its hash. */
  static final class Asset extends AbstractRestHandler {
    Asset() {
      super(HttpMethod.GET, "/assets/:file");
    }

    @Override
    public RestHandler.Content handle(RestRequest request) {
      String name = request.pathParameter("file");
      int dot = name.lastIndexOf('.');
      String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
      if (!ASSET_NAME.matcher(name).matches() || name.contains("..") || type == null) {
        throw notFound("/assets/" + name);
      }
      return read("assets/" + name, type, "public, max-age=31536000, immutable");
    }
  }

  private static RestHandler.Content read(String file, String type, String cacheControl) {
    RestHandler.Content cached = CACHE.get(file);
    if (cached != null) {
      return cached;
    }
    try (InputStream in =
        DashboardHandlers.class.getClassLoader().getResourceAsStream(ROOT + file)) {
      if (in == null) {
        if (file.equals("index.html")) {
          throw new RestException(
              HttpResponseStatus.NOT_FOUND,
              "The dashboard is not in this build: weir-dashboard's jar (built with Node 20+ and"
                  + " npm) is missing from the class path");
        }
        throw notFound("/" + file);
      }
      RestHandler.Content content = new RestHandler.Content(in.readAllBytes(), type, cacheControl);
      CACHE.put(file, content);
      return content;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the dashboard's " + ROOT + file, e);
    }
  }

  private static RestException notFound(String path) {
    return new RestException(
        HttpResponseStatus.NOT_FOUND, "The dashboard has no file " + path + " (open / instead)");
  }
}
