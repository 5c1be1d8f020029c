package io.weir.cluster.ha;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * The records kept in znodes and in the storage directory, as JSON: readable with {@code zkCli.sh
 * get}, and a field added later is ignored by an older reader.
 */
final class ZNodeJson {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private ZNodeJson() {}

  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot write " + value + " as JSON", e);
    }
  }

  /**
   * Reads {@code bytes} as a {@code type}.
   *
   * @throws HighAvailabilityException naming {@code where} when they are no such record
   */
  static <T> T read(byte[] bytes, Class<T> type, String where) {
    try {
      return MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new HighAvailabilityException(
          "Cannot read "
              + where
              + " as a "
              + type.getSimpleName()
              + " ("
              + e.getMessage()
              + "): was it written by another program? Remove it with zkCli.sh if so",
          e);
    }
  }
}
