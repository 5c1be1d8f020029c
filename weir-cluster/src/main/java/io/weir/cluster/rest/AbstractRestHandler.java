package io.weir.cluster.rest;

import io.netty.handler.codec.http.HttpMethod;

/** A {@link RestHandler} of one method and path template, given when it is made. */
public abstract class AbstractRestHandler implements RestHandler {
  private final HttpMethod method;
  private final String path;

  /**
   * @param method the HTTP method it serves
   * @param path its path template, e.g. {@code /jobs/:jobid/checkpoints}
   */
  protected AbstractRestHandler(HttpMethod method, String path) {
    this.method = method;
    this.path = path;
  }

  @Override
  public final HttpMethod method() {
    return method;
  }

  @Override
  public final String path() {
    return path;
  }
}
