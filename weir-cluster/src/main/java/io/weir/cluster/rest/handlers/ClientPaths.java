package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.rest.RestException;
import io.weir.runtime.storage.FileSystems;
import java.net.URI;
import java.util.Objects;

/**
 * The paths a REST client names (savepoint targets, the savepoint a run restores from, the
 * checkpoint directories among a run's settings), held to {@code security.rest.savepoint-root} when
 * it is set: a client then reaches nothing outside that directory, {@code ..} included.
 */
final class ClientPaths {

  private final URI root;

  ClientPaths(ClusterOptions options) {
    String configured = options.get(ClusterOptions.REST_SAVEPOINT_ROOT);
    this.root =
        configured == null || configured.isBlank()
            ? null
            : FileSystems.toUri(configured).normalize();
  }

  /**
   * Checks {@code path}, which the client gave as {@code what}.
   *
   * @throws RestException 403 naming the path, what it was given as, and the root, when it lies
   *     outside the root
   */
  void check(String path, String what) {
    if (root == null || path == null) {
      return;
    }
    URI uri;
    try {
      uri = FileSystems.toUri(path).normalize();
    } catch (IllegalArgumentException e) {
      throw new RestException(
          HttpResponseStatus.BAD_REQUEST, what + " '" + path + "' is no path or URI");
    }
    String rootPath = root.getPath().endsWith("/") ? root.getPath() : root.getPath() + "/";
    boolean inside =
        Objects.equals(root.getScheme(), uri.getScheme())
            && Objects.equals(root.getAuthority(), uri.getAuthority())
            && uri.getPath() != null
            && !uri.getPath().contains("/../")
            && (uri.getPath() + "/").startsWith(rootPath);
    if (!inside) {
      throw new RestException(
          HttpResponseStatus.FORBIDDEN,
          what
              + " '"
              + path
              + "' is outside "
              + root
              + ", the only place REST clients may name ("
              + ClusterOptions.REST_SAVEPOINT_ROOT.key()
              + ")");
    }
  }
}
