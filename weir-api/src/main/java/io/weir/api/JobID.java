package io.weir.api;

import java.util.UUID;

/**
 * Identifies one submitted job; checkpoints of the job live under a directory of this name.
 *
 * @param value 32 lowercase hex digits, as Flink prints job ids
 */
public record JobID(String value) {

  public JobID {
    if (!value.matches("[0-9a-f]{32}")) {
      throw new IllegalArgumentException(
          "A job id is 32 lowercase hex digits, got '" + value + "'");
    }
  }

  public static JobID generate() {
    return new JobID(UUID.randomUUID().toString().replace("-", ""));
  }

  @Override
  public String toString() {
    return value;
  }
}
