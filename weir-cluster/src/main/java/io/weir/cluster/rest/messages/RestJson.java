package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The one JSON mapper of the REST API's server and client. Fields it does not know are ignored on
 * both sides, as Flink's clients send fields Weir has no use for.
 */
public final class RestJson {

  /** Thread safe once configured, as every {@link ObjectMapper}. */
  public static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private RestJson() {}
}
