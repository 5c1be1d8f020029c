package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestHandler;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.HealthResponse;

/**
 * The JobManager's health, for probes (Kubernetes' liveness and readiness): {@code GET /health}
 * answers 200 whenever the process serves, {@code GET /health/leader} 200 on the JobManager that
 * leads the cluster and 503 on a standby, so that a Service whose readiness probe is the latter
 * routes to the leader only.
 */
final class HealthHandlers {

  private HealthHandlers() {}

  /** {@code GET /health}: the process serves. */
  static final class Alive extends AbstractRestHandler {
    private final Dispatcher dispatcher;

    Alive(Dispatcher dispatcher) {
      super(HttpMethod.GET, "/health");
      this.dispatcher = dispatcher;
    }

    @Override
    public HealthResponse handle(RestRequest request) {
      return new HealthResponse("UP", dispatcher.isLeading());
    }
  }

  /** {@code GET /health/leader}: 200 on the leader, 503 on a standby. */
  static final class Leader extends AbstractRestHandler {
    private final Dispatcher dispatcher;

    Leader(Dispatcher dispatcher) {
      super(HttpMethod.GET, "/health/leader");
      this.dispatcher = dispatcher;
    }

    @Override
    public HealthResponse handle(RestRequest request) {
      if (!dispatcher.isLeading()) {
        throw new RestException(
            HttpResponseStatus.SERVICE_UNAVAILABLE,
            "This JobManager is a standby: it does not lead the cluster");
      }
      return new HealthResponse("UP", true);
    }
  }

  /**
   * {@code handler}, answering 503 on a JobManager that does not lead (high availability): a
   * standby knows no job and no TaskManager.
   */
  static RestHandler leaderOnly(RestHandler handler, Dispatcher dispatcher) {
    return new RestHandler() {
      @Override
      public HttpMethod method() {
        return handler.method();
      }

      @Override
      public String path() {
        return handler.path();
      }

      @Override
      public Object handle(RestRequest request) throws Exception {
        try {
          if (!dispatcher.isLeading()) {
            throw new Dispatcher.NotLeaderException();
          }
          return handler.handle(request);
        } catch (Dispatcher.NotLeaderException e) {
          // Also when the leadership ended while the request was served.
          throw new RestException(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage());
        }
      }
    };
  }
}
