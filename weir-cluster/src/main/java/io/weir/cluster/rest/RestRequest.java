package io.weir.cluster.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.rest.messages.RestJson;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A call routed to a {@link RestHandler}: the HTTP request, the values of its path's parameters and
 * who sent it.
 */
public final class RestRequest {

  /** The largest JSON body a call may send (jar uploads are not JSON and have their own). */
  static final int MAX_JSON_BYTES = 1 << 20;

  private final FullHttpRequest http;
  private final String path;
  private final Map<String, String> pathParameters;
  private final SocketAddress remoteAddress;

  RestRequest(
      FullHttpRequest http,
      String path,
      Map<String, String> pathParameters,
      SocketAddress remoteAddress) {
    this.http = http;
    this.path = path;
    this.pathParameters = Map.copyOf(pathParameters);
    this.remoteAddress = remoteAddress;
  }

  /** The value of path parameter {@code name} ({@code jobid} of {@code /jobs/:jobid}). */
  public String pathParameter(String name) {
    String value = pathParameters.get(name);
    if (value == null) {
      throw new IllegalStateException("The route of " + path + " has no parameter :" + name);
    }
    return value;
  }

  /**
   * The JSON body as {@code type}; an empty body is {@code {}}.
   *
   * @throws RestException 400, naming the problem, when the body is not JSON of that shape (a field
   *     of another JSON type included); 413 when it is larger than {@link #MAX_JSON_BYTES}
   */
  public <T> T body(Class<T> type) {
    int size = http.content().readableBytes();
    if (size > MAX_JSON_BYTES) {
      throw new RestException(
          HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
          "The body of "
              + http.method()
              + " "
              + path
              + " has "
              + size
              + " bytes; a JSON body may have at most "
              + MAX_JSON_BYTES);
    }
    String body = http.content().toString(StandardCharsets.UTF_8);
    try {
      return RestJson.MAPPER.readValue(body.isBlank() ? "{}" : body, type);
    } catch (JsonProcessingException e) {
      throw new RestException(
          HttpResponseStatus.BAD_REQUEST,
          "The body of "
              + http.method()
              + " "
              + path
              + " is not the JSON expected"
              + field(e)
              + ": "
              + e.getOriginalMessage());
    }
  }

  /** Which field was at fault, as {@code at 'a.b'}, or nothing when the JSON itself is bad. */
  private static String field(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException mapping) || mapping.getPath().isEmpty()) {
      return "";
    }
    return mapping.getPath().stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : String.valueOf(r.getIndex()))
        .collect(Collectors.joining(".", " at '", "'"));
  }

  /**
   * The values of query parameter {@code name}, comma-separated ones split ({@code ?get=a,b} and
   * {@code ?get=a&get=b} alike); empty when absent.
   */
  public java.util.List<String> queryParameter(String name) {
    java.util.List<String> values =
        new io.netty.handler.codec.http.QueryStringDecoder(http.uri())
            .parameters()
            .getOrDefault(name, java.util.List.of());
    return values.stream()
        .flatMap(v -> java.util.Arrays.stream(v.split(",")))
        .map(String::strip)
        .filter(v -> !v.isEmpty())
        .toList();
  }

  /** The HTTP request itself (for a multipart upload). */
  public FullHttpRequest http() {
    return http;
  }

  /** Who sent it, for the log. */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }
}
