package io.weir.connector.kafka;

/** What a {@link KafkaSource} does with a record its deserializer throws on. */
public enum DeserializationFailurePolicy {
  /** Fail the job; the error names the record's topic, partition and offset (the default). */
  FAIL,
  /** Skip the record, log its topic, partition and offset and count it. */
  SKIP
}
