package io.weir.benchmarks.w4;

import io.weir.api.CheckpointConfig;
import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w1.WeirKeyedCount;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * W4 backpressure on Weir, embedded local cluster: W1's job with a slow sink (see {@link W4}), run
 * for 30 s and cancelled; checkpoint figures from {@link JobClient#getCheckpointStatistics()}.
 *
 * <p>Arguments: {@code <aligned|unaligned|timeout100> [records]} (records: the sequence's upper
 * bound, unbounded by default). Prints one {@link Result} line.
 */
public final class WeirBackpressure {
  private WeirBackpressure() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "W4", W4Job.CONFIGS, Long.MAX_VALUE);
    try (TempDir checkpoints = TempDir.create("weir-w4-checkpoints-")) {
      Configuration conf = new Configuration();
      conf.setString("restart-strategy.type", "none");
      var env = StreamEnvironment.create(conf);
      env.setParallelism(2);
      env.enableCheckpointing(W4Job.CHECKPOINT_INTERVAL);
      CheckpointConfig checkpointing = env.getCheckpointConfig();
      checkpointing.setCheckpointStorage(checkpoints.uri());
      checkpointing.setCheckpointTimeout(W4Job.CHECKPOINT_TIMEOUT);
      if (!job.config().equals("aligned")) {
        checkpointing.enableUnalignedCheckpoints();
      }
      if (job.config().equals("timeout100")) {
        checkpointing.setAlignedCheckpointTimeout(W4Job.ALIGNED_CHECKPOINT_TIMEOUT);
      }

      env.fromSequence(1, job.records())
          .map(W4Job::key)
          .keyBy(k -> k)
          .process(new WeirKeyedCount.CountPerKey())
          .returns(Types.TUPLE(Types.LONG, Types.LONG))
          .sinkTo(new SlowSink<>());

      long start = System.nanoTime();
      JobClient client = env.executeAsync("W4");
      W4Job.awaitRunFor(start, client.getJobExecutionResult());
      long sunk = SlowSink.RECORDS.sum();
      long nanos = System.nanoTime() - start;
      List<CheckpointStatistics> statistics = client.getCheckpointStatistics();
      client.cancel().get();

      List<Long> endToEnd = new ArrayList<>();
      long alignMax = 0;
      long inflightMax = 0;
      for (CheckpointStatistics checkpoint : statistics) {
        if (checkpoint.status() == CheckpointStatistics.Status.COMPLETED) {
          endToEnd.add(checkpoint.endToEndDurationMillis());
          alignMax = Math.max(alignMax, checkpoint.maxAlignmentDurationMillis());
          inflightMax = Math.max(inflightMax, checkpoint.channelStateBytes());
        }
      }
      System.out.println(
          "W4 weir: "
              + statistics.size()
              + " checkpoint statistics entries from JobClient.getCheckpointStatistics()");
      W4Job.result(Engine.WEIR, job.config(), sunk, nanos, endToEnd, alignMax, inflightMax).print();
    }
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
      };
    }
  }
}
