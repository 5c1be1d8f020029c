package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /jars/:jarid/run}: which program to run and how; every field may be left out.
 *
 * @param entryClass the class with {@code main}; null: the jar's {@code Main-Class}
 * @param programArgsList its arguments
 * @param parallelism {@code parallelism.default} of the job, or null
 * @param configuration job settings over the job's own (Weir's client sends these)
 * @param flinkConfiguration the same under Flink's name; wins when given
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JarRunRequest(
    String entryClass,
    List<String> programArgsList,
    Integer parallelism,
    Map<String, String> configuration,
    Map<String, String> flinkConfiguration) {

  /** The job settings given, under either name; empty when none. */
  public Map<String, String> settings() {
    Map<String, String> given = flinkConfiguration != null ? flinkConfiguration : configuration;
    return given == null ? Map.of() : given;
  }

  /** The program's arguments; empty when none. */
  public List<String> args() {
    return programArgsList == null ? List.of() : programArgsList;
  }
}
