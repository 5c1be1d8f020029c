package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.AbstractRestHandler;

/** A {@code GET} handler that answers from the JobManager's jobs. */
abstract class DispatcherGet extends AbstractRestHandler {
  final Dispatcher dispatcher;

  DispatcherGet(Dispatcher dispatcher, String path) {
    super(HttpMethod.GET, path);
    this.dispatcher = dispatcher;
  }
}
