package io.weir.benchmarks.w3;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.flink.FlinkRest;
import io.weir.benchmarks.w3.W3Job.CompletedCheckpoint;
import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * W3 large-state on Apache Flink 2.x, local mini cluster, parallelism 2: the same job as {@link
 * WeirLargeState}. Flink deletes its last checkpoint when a bounded job finishes, and its REST API
 * goes with the mini cluster, so the checkpoint figures are read while the job runs: {@code GET
 * /jobs/<id>/checkpoints} every {@link W3Job#FLINK_POLL_INTERVAL} through {@link FlinkRest},
 * keeping each completed checkpoint's {@code state_size}, {@code checkpointed_size} and {@code
 * end_to_end_duration}. A checkpoint that completes in the last moments before the job ends may be
 * missed; the {@code completed} count shows how many were seen.
 *
 * <p>Arguments: {@code <heap|rocksdb-incremental|rocksdb-full> [records]}. Prints one {@link
 * Result} line.
 */
public final class FlinkLargeState {
  private FlinkLargeState() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W3", W3Job.CONFIGS, W3Job.DEFAULT_RECORDS);
          W3Job.result(
                  Engine.FLINK,
                  job.config(),
                  job.records(),
                  run("W3", job, Map.of(), new WriteValue()))
              .print();
        });
  }

  /**
   * Runs the job once.
   *
   * @param settings further settings, applied last (W5: its restart strategy)
   * @param function the keyed function: {@link WriteValue}, or W5's failing subclass
   */
  public static W3Job.Run run(
      String workload, JobArgs job, Map<String, String> settings, WriteValue function)
      throws Exception {
    Map<String, String> backend = StateBackendSetting.ofId(job.config()).flinkSettings();
    try (TempDir checkpoints =
        TempDir.create("flink-" + workload.toLowerCase(Locale.ROOT) + "-checkpoints-")) {
      Map<String, String> all = new HashMap<>();
      all.put("restart-strategy.type", "none");
      all.putAll(backend);
      all.putAll(W3Job.checkpointSettings(checkpoints.uri()));
      all.putAll(settings);
      FlinkRest rest = FlinkRest.configure(all);
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(all));
      env.setParallelism(2);

      env.fromSequence(1, job.records())
          .keyBy(i -> W3Job.key(i))
          .process(function)
          .sinkTo(new DiscardingSink<>());

      long start = System.nanoTime();
      JobClient client = env.executeAsync(workload);
      CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
      AtomicLong end = new AtomicLong();
      CompletableFuture<JobExecutionResult> timed =
          result.whenComplete((r, e) -> end.set(System.nanoTime()));
      Map<Long, CompletedCheckpoint> completed =
          watchCheckpoints(rest, rest.jobUrl(client.getJobID()) + "/checkpoints", timed);
      timed.get(); // the job's failure, if it failed
      return new W3Job.Run(end.get() - start, completed.values().stream().toList());
    }
  }

  /**
   * Polls the job's checkpoints until {@code job} completes; returns the completed ones by id. A
   * poll that fails is retried at the next interval (the REST API may not know the job yet at the
   * start, and is gone once the mini cluster shuts down); if none ever succeeded, the last error is
   * printed and the figures are empty.
   */
  private static Map<Long, CompletedCheckpoint> watchCheckpoints(
      FlinkRest rest, String url, CompletableFuture<?> job) throws InterruptedException {
    Map<Long, CompletedCheckpoint> completed = new TreeMap<>();
    IOException lastError = null;
    boolean anyAnswer = false;
    while (!job.isDone()) {
      try {
        job.get(W3Job.FLINK_POLL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        break;
      } catch (TimeoutException e) {
        // still running: poll
      } catch (ExecutionException e) {
        break; // the caller rethrows the job's failure
      }
      try {
        for (JsonNode checkpoint : rest.get(url).path("history")) {
          if ("COMPLETED".equals(checkpoint.path("status").asText())) {
            long id = checkpoint.path("id").asLong();
            completed.put(
                id,
                new CompletedCheckpoint(
                    id,
                    checkpoint.path("state_size").asLong(),
                    checkpoint.path("checkpointed_size").asLong(),
                    checkpoint.path("end_to_end_duration").asLong()));
          }
        }
        anyAnswer = true;
      } catch (IOException e) {
        lastError = e;
      }
    }
    if (!anyAnswer && lastError != null) {
      System.out.println("W3 flink: no answer from the REST API: " + lastError.getMessage());
    }
    return completed;
  }

  /** Writes record {@code i}'s 100-byte value for its key without reading it, emits the key. */
  public static class WriteValue extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<byte[]> value;

    @Override
    public void open(OpenContext openContext) throws Exception {
      value =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "value", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
      value.update(W3Job.value(i));
      out.collect(ctx.getCurrentKey());
    }
  }
}
