package io.weir.cluster.rest.messages;

import java.util.List;

/** {@code GET /jars}, Flink's fields: the jars uploaded to this JobManager. */
public record JarList(String address, List<JarFile> files) {

  /**
   * @param id the jar's id (its SHA-256), as {@code POST /jars/:jarid/run} takes it
   * @param name the file name it was uploaded with
   * @param uploaded when, in epoch milliseconds
   */
  public record JarFile(String id, String name, long uploaded) {}
}
