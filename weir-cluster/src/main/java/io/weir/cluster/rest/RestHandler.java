package io.weir.cluster.rest;

import io.netty.handler.codec.http.HttpMethod;

/**
 * One endpoint of the REST API: its method, its path template (segments starting with {@code :} are
 * parameters, e.g. {@code /jobs/:jobid/checkpoints}) and what it answers. Called on the REST
 * server's handler threads, several at once.
 */
public interface RestHandler {

  /** The HTTP method it serves. */
  HttpMethod method();

  /** The path template it serves, e.g. {@code /jobs/:jobid/savepoints/:triggerid}. */
  String path();

  /**
   * Answers {@code request}: a record of {@code rest.messages}, serialized as JSON with status 200,
   * an {@link AnswerThen}, or a {@link Content} (a file of the dashboard).
   *
   * @throws RestException to answer with its status and message
   * @throws IllegalArgumentException naming the input at fault: 400
   */
  Object handle(RestRequest request) throws Exception;

  /**
   * A body to answer with, and what to run once it has been written to the client.
   *
   * @param body the reply
   * @param written run once the reply is written
   */
  record AnswerThen(Object body, Runnable written) {}

  /**
   * A reply that is not JSON, sent as it is with status 200.
   *
   * @param bytes the body
   * @param contentType its {@code Content-Type}
   * @param cacheControl its {@code Cache-Control}
   */
  record Content(byte[] bytes, String contentType, String cacheControl) {}
}
