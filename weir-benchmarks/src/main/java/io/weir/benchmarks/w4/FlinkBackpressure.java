package io.weir.benchmarks.w4;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.flink.FlinkRest;
import io.weir.benchmarks.w1.FlinkKeyedCount;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * W4 backpressure on Apache Flink 2.x, local mini cluster: the same job as {@link
 * WeirBackpressure}. Checkpoint figures come from the mini cluster's REST API (which it serves
 * without the web UI): {@code GET /jobs/<id>/checkpoints} for each checkpoint's status, end-to-end
 * duration and persisted in-flight bytes, and {@code
 * /jobs/<id>/checkpoints/details/<cp>/subtasks/<vertex>} for the alignment durations, through
 * {@link FlinkRest}.
 *
 * <p>Arguments: {@code <aligned|unaligned|timeout100> [records]} (records: the sequence's upper
 * bound, unbounded by default). Prints one {@link Result} line.
 */
public final class FlinkBackpressure {
  private FlinkBackpressure() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "W4", W4Job.CONFIGS, Long.MAX_VALUE);
    try (TempDir checkpoints = TempDir.create("flink-w4-checkpoints-")) {
      Map<String, String> settings = new HashMap<>();
      settings.put("restart-strategy.type", "none");
      settings.put("execution.checkpointing.interval", W4Job.CHECKPOINT_INTERVAL.toMillis() + "ms");
      settings.put("execution.checkpointing.dir", checkpoints.uri());
      settings.put("execution.checkpointing.timeout", W4Job.CHECKPOINT_TIMEOUT.toMillis() + "ms");
      if (!job.config().equals("aligned")) {
        settings.put("execution.checkpointing.unaligned.enabled", "true");
      }
      if (job.config().equals("timeout100")) {
        settings.put(
            "execution.checkpointing.aligned-checkpoint-timeout",
            W4Job.ALIGNED_CHECKPOINT_TIMEOUT.toMillis() + "ms");
      }
      FlinkRest rest = FlinkRest.configure(settings);
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(settings));
      env.setParallelism(2);

      env.fromSequence(1, job.records())
          .map(W4Job::key)
          .keyBy(k -> k)
          .process(new FlinkKeyedCount.CountPerKey())
          .sinkTo(new SlowSink<>());

      long start = System.nanoTime();
      JobClient client = env.executeAsync("W4");
      W4Job.awaitRunFor(start, client.getJobExecutionResult());
      long sunk = SlowSink.RECORDS.sum();
      long nanos = System.nanoTime() - start;
      Result result =
          checkpointFigures(rest, rest.jobUrl(client.getJobID()), job.config(), sunk, nanos);
      client.cancel().get();
      result.print();
    }
  }

  /** Reads the completed checkpoints' figures over REST while the job still runs. */
  private static Result checkpointFigures(
      FlinkRest rest, String jobUrl, String config, long sunk, long nanos)
      throws IOException, InterruptedException {
    JsonNode overview = rest.get(jobUrl + "/checkpoints");
    List<Long> endToEnd = new ArrayList<>();
    long alignMax = 0;
    long inflightMax = 0;
    for (JsonNode checkpoint : overview.path("history")) {
      if (!"COMPLETED".equals(checkpoint.path("status").asText())) {
        continue;
      }
      endToEnd.add(checkpoint.path("end_to_end_duration").asLong());
      inflightMax = Math.max(inflightMax, checkpoint.path("persisted_data").asLong());
      String details = jobUrl + "/checkpoints/details/" + checkpoint.path("id").asLong();
      Iterator<String> vertices = rest.get(details).path("tasks").fieldNames();
      while (vertices.hasNext()) {
        JsonNode subtasks = rest.get(details + "/subtasks/" + vertices.next());
        for (JsonNode subtask : subtasks.path("subtasks")) {
          alignMax = Math.max(alignMax, subtask.path("alignment").path("duration").asLong());
        }
      }
    }
    System.out.println(
        "W4 flink: counts "
            + overview.path("counts")
            + ", summary end_to_end_duration "
            + overview.path("summary").path("end_to_end_duration"));
    return W4Job.result(Engine.FLINK, config, sunk, nanos, endToEnd, alignMax, inflightMax);
  }

  /**
   * Counts what reaches it (all subtasks together, in this JVM) and sleeps 1 ms each time its
   * subtask's own count is a multiple of {@link W4#SLEEP_EVERY}.
   */
  static final class SlowSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;

    static final LongAdder RECORDS = new LongAdder();

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
      return new SinkWriter<T>() {
        private long count;

        @Override
        public void write(T element, Context ctx) throws InterruptedException {
          RECORDS.increment();
          if (++count % W4Job.SLEEP_EVERY == 0) {
            Thread.sleep(1);
          }
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }
}
