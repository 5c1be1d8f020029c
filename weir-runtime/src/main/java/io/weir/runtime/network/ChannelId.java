package io.weir.runtime.network;

/**
 * Names one channel of one attempt of a job across processes: the edge, and the producer and
 * consumer subtasks it joins. The data plane matches a consumer's request to the producer's end by
 * it.
 *
 * @param jobId the job
 * @param attempt the attempt of the job (a restarted job's channels never mix with the old ones)
 * @param edgeId the stream edge ({@code StreamEdge.id()})
 * @param producerVertex the producing job vertex
 * @param producerSubtask the producing subtask
 * @param consumerVertex the consuming job vertex
 * @param consumerSubtask the consuming subtask
 */
public record ChannelId(
    String jobId,
    int attempt,
    int edgeId,
    int producerVertex,
    int producerSubtask,
    int consumerVertex,
    int consumerSubtask) {

  /** The text form, which travels on the wire. */
  public String asText() {
    return jobId
        + "/"
        + attempt
        + "/"
        + edgeId
        + "/"
        + producerVertex
        + "."
        + producerSubtask
        + "/"
        + consumerVertex
        + "."
        + consumerSubtask;
  }

  /** Parses {@link #asText()}; a clear error names what is malformed. */
  public static ChannelId parse(String text) {
    String[] parts = text.split("/", -1);
    if (parts.length != 5) {
      throw new IllegalArgumentException("Not a channel id: '" + text + "'");
    }
    try {
      String[] producer = parts[3].split("\\.");
      String[] consumer = parts[4].split("\\.");
      return new ChannelId(
          parts[0],
          Integer.parseInt(parts[1]),
          Integer.parseInt(parts[2]),
          Integer.parseInt(producer[0]),
          Integer.parseInt(producer[1]),
          Integer.parseInt(consumer[0]),
          Integer.parseInt(consumer[1]));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Not a channel id: '" + text + "'", e);
    }
  }

  @Override
  public String toString() {
    return asText();
  }
}
