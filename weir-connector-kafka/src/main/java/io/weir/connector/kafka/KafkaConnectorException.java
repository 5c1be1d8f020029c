package io.weir.connector.kafka;

/** A Kafka connector error whose message names what is at fault and what to do. */
public class KafkaConnectorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KafkaConnectorException(String message, Throwable cause) {
    super(message, cause);
  }

  public KafkaConnectorException(String message) {
    super(message);
  }
}
