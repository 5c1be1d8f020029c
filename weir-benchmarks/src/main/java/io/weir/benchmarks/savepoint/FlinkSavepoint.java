package io.weir.benchmarks.savepoint;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w3.W3Job;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * SAVEPOINT on Apache Flink 2.x, local mini cluster, parallelism 2: the same job and steps as
 * {@link WeirSavepoint}; the savepoint through {@code JobClient.triggerSavepoint(dir,
 * SavepointFormatType.CANONICAL)}, the one restored. After it, while the job still runs, a NATIVE
 * savepoint is taken as well ({@code nativeTakeMs}, {@code nativeBytes}; not restored).
 *
 * <p>Arguments: {@code <heap|rocksdb> [records]}. Prints one {@link Result} line.
 */
public final class FlinkSavepoint {
  private FlinkSavepoint() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job =
              JobArgs.parse(
                  args, SavepointJob.WORKLOAD, SavepointJob.CONFIGS, SavepointJob.DEFAULT_RECORDS);
          long[] nativeFigures = new long[2];
          SavepointJob.Run run = run(job, nativeFigures);
          SavepointJob.result(Engine.FLINK, job.config(), job.records(), run)
              .with("nativeTakeMs", Long.toString(nativeFigures[0] / 1_000_000))
              .with("nativeBytes", Long.toString(nativeFigures[1]))
              .print();
        });
  }

  static SavepointJob.Run run(JobArgs job, long[] nativeFigures) throws Exception {
    try (TempDir checkpoints = TempDir.create("flink-savepoint-checkpoints-");
        TempDir savepoints = TempDir.create("flink-savepoints-")) {
      SavepointJob.Progress.reset();
      long start = System.nanoTime();
      JobClient client = env(job, checkpoints, null).executeAsync(SavepointJob.WORKLOAD);
      CompletableFuture<?> result = client.getJobExecutionResult();
      SavepointJob.Progress.awaitProcessed(job.records(), result);
      long loadNanos = System.nanoTime() - start;

      String dir = savepoints.path().toString();
      long trigger = System.nanoTime();
      String savepoint =
          client.triggerSavepoint(dir, SavepointFormatType.CANONICAL).get(10, TimeUnit.MINUTES);
      long takeNanos = System.nanoTime() - trigger;
      long bytes = SavepointJob.sizeOf(pathOf(savepoint));

      long nativeTrigger = System.nanoTime();
      String nativeSavepoint =
          client.triggerSavepoint(dir, SavepointFormatType.NATIVE).get(10, TimeUnit.MINUTES);
      nativeFigures[0] = System.nanoTime() - nativeTrigger;
      nativeFigures[1] = SavepointJob.sizeOf(pathOf(nativeSavepoint));
      client.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(result);

      SavepointJob.Progress.reset();
      long resubmit = System.nanoTime();
      JobClient restored =
          env(job, checkpoints, savepoint).executeAsync(SavepointJob.WORKLOAD + "-restored");
      CompletableFuture<?> restoredResult = restored.getJobExecutionResult();
      long restoreNanos = SavepointJob.Progress.awaitFirstRecords(restoredResult) - resubmit;
      restored.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(restoredResult);

      // The same submission without state, warm as the restore was: what restoreMs includes
      // besides loading the state (the mini cluster's start, deployment).
      SavepointJob.Progress.reset();
      long fresh = System.nanoTime();
      JobClient stateless =
          env(job, checkpoints, null).executeAsync(SavepointJob.WORKLOAD + "-stateless");
      CompletableFuture<?> statelessResult = stateless.getJobExecutionResult();
      long startNanos = SavepointJob.Progress.awaitFirstRecords(statelessResult) - fresh;
      stateless.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(statelessResult);
      return new SavepointJob.Run(loadNanos, startNanos, takeNanos, bytes, restoreNanos);
    }
  }

  /** Flink returns {@code file:/tmp/...}. */
  private static Path pathOf(String savepoint) {
    return savepoint.startsWith("file:") ? Path.of(URI.create(savepoint)) : Path.of(savepoint);
  }

  private static void awaitEnd(CompletableFuture<?> result) {
    try {
      result.get(1, TimeUnit.MINUTES);
    } catch (Exception e) {
      // cancelled: the result future fails
    }
  }

  private static StreamExecutionEnvironment env(
      JobArgs job, TempDir checkpoints, String restoreFrom) {
    Map<String, String> all = new HashMap<>();
    all.put("restart-strategy.type", "none");
    all.putAll(SavepointJob.backend(job.config()).flinkSettings());
    all.putAll(SavepointJob.checkpointSettings(checkpoints.uri()));
    if (restoreFrom != null) {
      all.put("execution.state-recovery.path", restoreFrom);
    }
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(all));
    env.setParallelism(SavepointJob.PARALLELISM);
    long records = job.records();
    env.fromSequence(1, Long.MAX_VALUE)
        .uid("sequence")
        .flatMap(new Feed(records))
        .uid("feed")
        .keyBy(i -> W3Job.key(i))
        .process(new WriteValue())
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
      long i =
          SavepointJob.feed(
              getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), seen++, records);
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
      value =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "value", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
      value.update(W3Job.value(i));
      SavepointJob.Progress.processed(
          getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), !seen);
      seen = true;
      out.collect(ctx.getCurrentKey());
    }
  }
}
