package io.weir.benchmarks.savepoint;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFlatMapFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w3.W3Job;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * SAVEPOINT on Weir, embedded local cluster, parallelism 2: the job and the steps of {@link
 * SavepointJob}; the savepoint through {@link JobClient#triggerSavepoint(String)}.
 *
 * <p>Arguments: {@code <heap|rocksdb> [records]}. Prints one {@link Result} line.
 */
public final class WeirSavepoint {
  private WeirSavepoint() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job =
              JobArgs.parse(
                  args, SavepointJob.WORKLOAD, SavepointJob.CONFIGS, SavepointJob.DEFAULT_RECORDS);
          SavepointJob.result(Engine.WEIR, job.config(), job.records(), run(job)).print();
        });
  }

  static SavepointJob.Run run(JobArgs job) throws Exception {
    try (TempDir checkpoints = TempDir.create("weir-savepoint-checkpoints-");
        TempDir savepoints = TempDir.create("weir-savepoints-")) {
      SavepointJob.Progress.reset();
      long start = System.nanoTime();
      JobClient client = env(job, checkpoints, null).executeAsync(SavepointJob.WORKLOAD);
      var result = client.getJobExecutionResult();
      SavepointJob.Progress.awaitProcessed(job.records(), result);
      long loadNanos = System.nanoTime() - start;

      long trigger = System.nanoTime();
      String savepoint =
          client.triggerSavepoint(savepoints.path().toString()).get(10, TimeUnit.MINUTES);
      long takeNanos = System.nanoTime() - trigger;
      long bytes = SavepointJob.sizeOf(Path.of(URI.create(savepoint)));
      client.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(client);

      SavepointJob.Progress.reset();
      long resubmit = System.nanoTime();
      JobClient restored =
          env(job, checkpoints, savepoint).executeAsync(SavepointJob.WORKLOAD + "-restored");
      long restoreNanos =
          SavepointJob.Progress.awaitFirstRecords(restored.getJobExecutionResult()) - resubmit;
      restored.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(restored);

      // The same submission without state, warm as the restore was: what restoreMs includes
      // besides loading the state (the embedded cluster's start, deployment).
      SavepointJob.Progress.reset();
      long fresh = System.nanoTime();
      JobClient stateless =
          env(job, checkpoints, null).executeAsync(SavepointJob.WORKLOAD + "-stateless");
      long startNanos =
          SavepointJob.Progress.awaitFirstRecords(stateless.getJobExecutionResult()) - fresh;
      stateless.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(stateless);
      return new SavepointJob.Run(loadNanos, startNanos, takeNanos, bytes, restoreNanos);
    }
  }

  private static void awaitEnd(JobClient client) {
    try {
      client.getJobExecutionResult().get(1, TimeUnit.MINUTES);
    } catch (Exception e) {
      // cancelled: the result future fails
    }
  }

  private static StreamEnvironment env(JobArgs job, TempDir checkpoints, String restoreFrom) {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    SavepointJob.backend(job.config()).weirSettings().forEach(conf::setString);
    SavepointJob.checkpointSettings(checkpoints.uri()).forEach(conf::setString);
    if (restoreFrom != null) {
      conf.setString("execution.state-recovery.path", restoreFrom);
    }
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(SavepointJob.PARALLELISM);
    long records = job.records();
    env.fromSequence(1, Long.MAX_VALUE)
        .uid("sequence")
        .flatMap(new Feed(records))
        .returns(Types.LONG)
        .uid("feed")
        .keyBy(i -> W3Job.key(i))
        .process(new WriteValue())
        .returns(Types.LONG)
        .uid("write-value")
        .sinkTo(new DiscardingSink<>())
        .uid("discard");
    return env;
  }

  /** {@link SavepointJob#feed}: the first N records of the job, then idle. */
  static final class Feed extends RichFlatMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final long records;
    private transient long seen;

    Feed(long records) {
      this.records = records;
    }

    @Override
    public void flatMap(Long ignored, Collector<Long> out) {
      long i = SavepointJob.feed(getRuntimeContext().getIndexOfThisSubtask(), seen++, records);
      if (i > 0) {
        out.collect(i);
      }
    }
  }

  /** W3's keyed function, counting for {@link SavepointJob.Progress}. */
  static final class WriteValue extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<byte[]> value;
    private transient boolean seen;

    @Override
    public void open(OpenContext openContext) throws Exception {
      value = getRuntimeContext().getState(new ValueStateDescriptor<>("value", byte[].class));
    }

    @Override
    public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
      value.update(W3Job.value(i));
      SavepointJob.Progress.processed(getRuntimeContext().getIndexOfThisSubtask(), !seen);
      seen = true;
      out.collect(ctx.getCurrentKey());
    }
  }
}
