package io.weir.cluster.rest;

import com.google.common.base.Splitter;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the {@link RestHandler} of a method and path. Of the templates that match, the one with
 * more literal segments wins ({@code GET /jobs/overview} over {@code GET /jobs/:jobid}), whatever
 * the order of registration. Immutable; thread safe.
 */
public final class Router {

  /**
   * A handler and the values of its path's parameters.
   *
   * @param handler the handler
   * @param pathParameters the parameters' values by name (without the colon)
   */
  public record Match(RestHandler handler, Map<String, String> pathParameters) {}

  private record Route(RestHandler handler, List<String> segments) {}

  private final List<Route> routes = new ArrayList<>();

  /**
   * A router of {@code handlers}.
   *
   * @throws IllegalArgumentException when two serve the same method and path
   */
  public Router(List<? extends RestHandler> handlers) {
    for (RestHandler handler : handlers) {
      Route route = new Route(handler, segments(handler.path()));
      for (Route other : routes) {
        if (other.handler().method().equals(handler.method())
            && shape(other.segments()).equals(shape(route.segments()))) {
          throw new IllegalArgumentException(
              "Two REST handlers for " + handler.method() + " " + handler.path());
        }
      }
      routes.add(route);
    }
  }

  private static List<String> segments(String path) {
    return Splitter.on('/').omitEmptyStrings().splitToList(path);
  }

  /** Parameters as one placeholder, so that {@code /jobs/:id} and {@code /jobs/:jobid} clash. */
  private static List<String> shape(List<String> segments) {
    return segments.stream().map(s -> s.startsWith(":") ? ":" : s).toList();
  }

  /** Every handler, in the order given. */
  public List<RestHandler> handlers() {
    return routes.stream().map(Route::handler).toList();
  }

  /** The handler of {@code method} and {@code path}, or null when there is none. */
  public Match route(HttpMethod method, String path) {
    List<String> segments = segments(path);
    Match best = null;
    int bestLiterals = -1;
    for (Route route : routes) {
      if (!route.handler().method().equals(method) || route.segments().size() != segments.size()) {
        continue;
      }
      Map<String, String> parameters = new HashMap<>();
      int literals = 0;
      boolean matches = true;
      for (int i = 0; i < segments.size() && matches; i++) {
        String template = route.segments().get(i);
        if (template.startsWith(":")) {
          parameters.put(template.substring(1), segments.get(i));
        } else if (template.equals(segments.get(i))) {
          literals++;
        } else {
          matches = false;
        }
      }
      if (matches && literals > bestLiterals) {
        best = new Match(route.handler(), parameters);
        bestLiterals = literals;
      }
    }
    return best;
  }
}
