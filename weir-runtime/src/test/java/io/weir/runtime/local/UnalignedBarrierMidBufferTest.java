package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.runtime.api.UnboundedSource;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * An overtaking barrier overtakes the rest of the buffer its task is reading, not only the buffers
 * queued behind it: the task takes the barrier between two records (Flink's priority event in the
 * mailbox) and records the unread rest of the buffer as in-flight data. Otherwise a slow operator
 * would finish the whole buffer before its snapshot, which is most of an unaligned checkpoint's
 * time under backpressure.
 */
@TestMatrix
class UnalignedBarrierMidBufferTest {

  static final int BLOCK_AT = 10;
  // Fresh per run of the test (functions reach them statically, in this JVM).
  static volatile CountDownLatch blocked;
  static volatile CountDownLatch release;

  /** Per checkpoint id, how many records the mapper had processed when it snapshotted. */
  static final Map<Long, Long> COUNT_AT_SNAPSHOT = new ConcurrentHashMap<>();

  /** Counts records; waits at the {@value #BLOCK_AT}th until the test releases it. */
  static final class BlockingCounter extends RichMapFunction<Long, Long>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private transient long count;

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public Long map(Long value) throws Exception {
      if (++count == BLOCK_AT) {
        blocked.countDown();
        release.await();
      }
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      COUNT_AT_SNAPSHOT.put(context.getCheckpointId(), count);
    }
  }

  /** The oldest checkpoint the source acknowledged and the mapper did not snapshot, else 0. */
  private static long sentNotSnapshotted(JobClient client) {
    return client.getCheckpointStatistics().stream()
        .filter(c -> c.subtasks().stream().anyMatch(s -> s.taskName().startsWith("Source")))
        .mapToLong(CheckpointStatistics::checkpointId)
        .filter(id -> !COUNT_AT_SNAPSHOT.containsKey(id))
        .min()
        .orElse(0);
  }

  @Test
  void theBarrierIsTakenBetweenTwoRecordsOfTheBufferBeingRead() throws Exception {
    blocked = new CountDownLatch(1);
    release = new CountDownLatch(1);
    COUNT_AT_SNAPSHOT.clear();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    // Buffers leave only when full: the records after the 10th share its buffer.
    env.setBufferTimeout(Duration.ofMinutes(10));
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig().enableUnalignedCheckpoints();
    env.setRestartStrategy(RestartStrategy.none());
    env.fromSource(UnboundedSource.emitting(1_000_000, 0), "Numbers")
        .rebalance()
        .map(new BlockingCounter())
        .addSink((SinkFunction<Long>) (value, ctx) -> {});
    JobClient client = env.executeAsync("mid-buffer barrier");
    try {
      blocked.await();
      // The mapper is stuck inside the first buffer. Wait for a checkpoint whose barrier the source
      // has sent (it acknowledges after putting the barrier at the head of the mapper's channel)
      // and which the blocked mapper has not snapshotted.
      long firstId =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> sentNotSnapshotted(client), id -> id > 0);
      release.countDown();

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  client.getCheckpointStatistics().stream()
                      .anyMatch(
                          c ->
                              c.checkpointId() == firstId
                                  && c.status() != CheckpointStatistics.Status.IN_PROGRESS));
      CheckpointStatistics first =
          client.getCheckpointStatistics().stream()
              .filter(c -> c.checkpointId() == firstId)
              .findFirst()
              .orElseThrow();
      assertThat(first.status()).isEqualTo(CheckpointStatistics.Status.COMPLETED);
      assertThat(COUNT_AT_SNAPSHOT.get(firstId))
          .as("the mapper snapshotted right after the record it was blocked in")
          .isEqualTo(BLOCK_AT);
      CheckpointStatistics.SubtaskCheckpointStatistics mapper =
          first.subtasks().stream()
              .filter(s -> s.taskName().startsWith("Map"))
              .findFirst()
              .orElseThrow();
      assertThat(mapper.unaligned()).isTrue();
      assertThat(mapper.channelStateBytes())
          .as("the unread rest of the buffer is in-flight data of the checkpoint")
          .isPositive();
    } finally {
      release.countDown();
      client.cancel().get();
    }
  }
}
