package io.weir.cluster.rest.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpMethod;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.RestJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json}: the REST API's OpenAPI 3 description, a resource of this module that
 * {@code OpenApiDescriptionTest} holds to the handlers (every path and method described is served,
 * and every one served is described).
 */
final class OpenApiHandler extends AbstractRestHandler {

  /** Where the description is, on the class path. */
  static final String RESOURCE = "/io/weir/cluster/rest/openapi.json";

  private final JsonNode description = load();

  OpenApiHandler() {
    super(HttpMethod.GET, "/openapi.json");
  }

  static JsonNode load() {
    try (InputStream in = OpenApiHandler.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The REST API's description " + RESOURCE + " is missing");
      }
      return RestJson.MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCE + ": " + e.getMessage(), e);
    }
  }

  @Override
  public JsonNode handle(RestRequest request) {
    return description;
  }
}
