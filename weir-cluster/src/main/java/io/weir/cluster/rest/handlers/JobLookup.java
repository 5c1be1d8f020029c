package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.RestException;

/** Looking a job up for a handler. */
final class JobLookup {

  private JobLookup() {}

  /**
   * The job of id {@code jobId}.
   *
   * @throws RestException 404 naming the id when the JobManager has no such job
   */
  static Dispatcher.Job find(Dispatcher dispatcher, String jobId) {
    try {
      return dispatcher.job(jobId);
    } catch (Dispatcher.NoSuchJobException e) {
      throw new RestException(HttpResponseStatus.NOT_FOUND, e.getMessage());
    }
  }
}
