package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The end of a bounded job is no checkpoint failure. The checkpoint triggered right after the final
 * one can reach a task before the task ends; the task must let that snapshot's upload end before it
 * closes its state. A RocksDB backend closed under the upload made the task decline the checkpoint,
 * the coordinator counted the decline (no failed checkpoint is tolerated by default) and failed the
 * job over at its very end: with no restarts the job failed, with restarts it restarted once more
 * than it had failed. This runs on the heap backend here and on RocksDB (full and incremental) from
 * weir-state-rocksdb, many short jobs since each ends once.
 */
@TestMatrix
class FinishWithUploadsInFlightTest {

  static final int JOBS = 12;

  /** Counts per key: keyed state that every checkpoint snapshots. */
  static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
    }
  }

  @ParameterizedTest(name = "unaligned={0}")
  @ValueSource(booleans = {false, true})
  void boundedJobsEndWithoutFailedCheckpoints(boolean unaligned, @TempDir Path dir)
      throws Exception {
    for (int job = 0; job < JOBS; job++) {
      StreamEnvironment env = StreamEnvironment.create();
      env.setParallelism(3);
      // Checkpoints back to back, so one is in flight whenever the job ends.
      env.enableCheckpointing(Duration.ofMillis(10));
      env.getCheckpointConfig()
          .setCheckpointStorage(dir.resolve("checkpoints-" + job).toUri().toString());
      if (unaligned) {
        env.getCheckpointConfig()
            .enableUnalignedCheckpoints()
            .setAlignedCheckpointTimeout(Duration.ZERO);
      }
      env.setRestartStrategy(RestartStrategy.none());
      env.fromSequence(1, 30_000)
          .keyBy(i -> i % 37)
          .process(new Count())
          .returns(Types.LONG)
          .sinkTo(new DiscardingSink<>());

      // Any failed checkpoint fails the job: none may be tolerated, nothing restarts.
      JobExecutionResult result = env.execute("finish-with-uploads-in-flight-" + job);

      assertThat(result.metrics().get("job.restarts")).isZero();
      assertThat(result.metrics().get("job.checkpoints.failed")).as("job %d", job).isZero();
    }
  }
}
