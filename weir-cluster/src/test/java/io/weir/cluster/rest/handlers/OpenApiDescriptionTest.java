package io.weir.cluster.rest.handlers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.rest.RestHandler;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The OpenAPI description served at {@code /openapi.json} is the API the handlers serve. */
class OpenApiDescriptionTest {

  /** {@code GET /jobs/{jobid}} for a handler of {@code GET /jobs/:jobid}. */
  private static String operation(String method, String path) {
    return method.toUpperCase(Locale.ROOT) + " " + path.replaceAll(":(\\w+)", "{$1}");
  }

  @Test
  void everyPathAndMethodServedIsDescribedAndNothingElse() {
    Set<String> served = new TreeSet<>();
    for (RestHandler h : new JobManagerEndpoints(null, null).router().handlers()) {
      served.add(operation(h.method().name(), h.path()));
    }
    Set<String> described = new TreeSet<>();
    JsonNode paths = OpenApiHandler.load().path("paths");
    paths
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fieldNames()
                    .forEachRemaining(method -> described.add(operation(method, path.getKey()))));

    assertThat(described).isEqualTo(served);
  }

  @Test
  void everyPathParameterIsDeclared() {
    OpenApiHandler.load()
        .path("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .forEach(
                        op -> {
                          Set<String> declared = new TreeSet<>();
                          op.path("parameters")
                              .forEach(
                                  p -> {
                                    if (p.path("in").asText().equals("path")) {
                                      declared.add(p.path("name").asText());
                                    }
                                  });
                          Set<String> inPath = new TreeSet<>();
                          java.util.regex.Matcher m =
                              java.util.regex.Pattern.compile("\\{(\\w+)}").matcher(path.getKey());
                          while (m.find()) {
                            inPath.add(m.group(1));
                          }
                          assertThat(declared).as(path.getKey()).isEqualTo(inPath);
                        }));
  }
}
