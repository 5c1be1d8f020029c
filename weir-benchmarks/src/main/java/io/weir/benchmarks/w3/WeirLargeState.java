package io.weir.benchmarks.w3;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w3.W3Job.CompletedCheckpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * W3 large-state on Weir, embedded local cluster, parallelism 2: the job of {@link W3Job} on the
 * heap backend or on RocksDB (incremental or full), chosen by configuration keys only. Checkpoint
 * figures come from {@link JobClient#getCheckpointStatistics()}, read when the job has ended (the
 * coordinator keeps them).
 *
 * <p>Arguments: {@code <heap|rocksdb-incremental|rocksdb-full> [records]}. Prints one {@link
 * Result} line.
 */
public final class WeirLargeState {
  private WeirLargeState() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W3", W3Job.CONFIGS, W3Job.DEFAULT_RECORDS);
          W3Job.result(
                  Engine.WEIR,
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
    Map<String, String> backend = StateBackendSetting.ofId(job.config()).weirSettings();
    try (TempDir checkpoints =
        TempDir.create("weir-" + workload.toLowerCase(Locale.ROOT) + "-checkpoints-")) {
      Configuration conf = new Configuration();
      conf.setString("restart-strategy.type", "none");
      backend.forEach(conf::setString);
      W3Job.checkpointSettings(checkpoints.uri()).forEach(conf::setString);
      settings.forEach(conf::setString);
      var env = StreamEnvironment.create(conf);
      env.setParallelism(2);

      env.fromSequence(1, job.records())
          .keyBy(i -> W3Job.key(i))
          .process(function)
          .returns(Types.LONG)
          .sinkTo(new DiscardingSink<>());

      long start = System.nanoTime();
      JobClient client = env.executeAsync(workload);
      client.getJobExecutionResult().get();
      long nanos = System.nanoTime() - start;

      List<CompletedCheckpoint> completed = new ArrayList<>();
      for (CheckpointStatistics checkpoint : client.getCheckpointStatistics()) {
        if (checkpoint.status() == CheckpointStatistics.Status.COMPLETED) {
          completed.add(
              new CompletedCheckpoint(
                  checkpoint.checkpointId(),
                  checkpoint.stateSizeBytes(),
                  checkpoint.checkpointedSizeBytes(),
                  checkpoint.endToEndDurationMillis()));
        }
      }
      return new W3Job.Run(nanos, completed);
    }
  }

  /** Writes record {@code i}'s 100-byte value for its key without reading it, emits the key. */
  public static class WriteValue extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<byte[]> value;

    @Override
    public void open(OpenContext openContext) throws Exception {
      value = getRuntimeContext().getState(new ValueStateDescriptor<>("value", byte[].class));
    }

    @Override
    public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
      value.update(W3Job.value(i));
      out.collect(ctx.getCurrentKey());
    }
  }
}
