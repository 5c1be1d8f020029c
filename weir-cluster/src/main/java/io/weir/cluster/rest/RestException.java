package io.weir.cluster.rest;

import io.netty.handler.codec.http.HttpResponseStatus;

/** An error to answer with a status code and a message naming what is wrong. */
public final class RestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // Netty's status is not serializable; nobody serializes this
  private final HttpResponseStatus status;

  public RestException(HttpResponseStatus status, String message) {
    super(message);
    this.status = status;
  }

  public HttpResponseStatus status() {
    return status;
  }
}
