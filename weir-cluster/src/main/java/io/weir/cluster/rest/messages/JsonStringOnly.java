package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * A text field that takes a JSON string and nothing else. The mapper otherwise turns numbers into
 * text, as Flink's tools rely on for program arguments and settings; for a path that is a mistake
 * to report: {@code {"target-directory": 42}} once wrote a savepoint into a directory {@code 42}.
 */
final class JsonStringOnly extends StdDeserializer<String> {

  private static final long serialVersionUID = 1L;

  JsonStringOnly() {
    super(String.class);
  }

  @Override
  public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_STRING) {
      return parser.getText();
    }
    return (String) context.handleUnexpectedToken(String.class, parser);
  }
}
