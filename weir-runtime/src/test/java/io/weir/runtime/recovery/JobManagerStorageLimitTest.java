package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.chainMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.JobExecutionException;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * JobManager checkpoint storage keeps state in the coordinator's memory and refuses a state larger
 * than its limit (5 MiB by default) with an error that names the operator, the size and the limit.
 */
@Timeout(60)
@TestMatrix
class JobManagerStorageLimitTest {

  static final int VALUE_BYTES = 100 * 1024;

  /** Keeps a 100 KiB byte[] per key. */
  static final class BigValues extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<byte[]> blob;

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext openContext) {
      blob =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "blob", (TypeInformation<byte[]>) Types.PRIMITIVE_ARRAY(Types.BYTE)));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      byte[] bytes = new byte[VALUE_BYTES];
      Arrays.fill(bytes, (byte) (long) value);
      blob.update(bytes);
      out.collect(value);
    }
  }

  static StreamEnvironment bigStateJob(int keys) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig()
        .setCheckpointStorage("jobmanager")
        .setTolerableCheckpointFailureNumber(0);
    env.setRestartStrategy(RestartStrategy.none());
    env.fromSequence(0, keys - 1)
        .keyBy(v -> v, Types.LONG)
        .process(new BigValues())
        .uid("big-state")
        .name("big-state")
        .sinkTo(new DiscardingSink<>());
    return env;
  }

  @Test
  void stateAboveFiveMebibytesFailsTheJobNamingOperatorSizeAndLimit() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RecoveryTestSupport.keyedStateIsOnePiecePerSubtask(),
        "native RocksDB checkpoints store (and limit) each compressed SST file on its own");
    StreamEnvironment env = bigStateJob(100); // 100 x 100 KiB = ~9.8 MiB in one subtask

    Throwable error = catchJobFailure(env);

    String messages = chainMessages(error);
    assertThat(messages)
        .contains("big-state")
        .containsPattern("\\d{7,} bytes")
        .containsPattern("(?i)5 ?(mb|mib)")
        .contains("JobManager checkpoint storage");
  }

  @Test
  void theLimitKeyOfTheConfigurationIsHonoured() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RecoveryTestSupport.keyedStateIsOnePiecePerSubtask(),
        "native RocksDB checkpoints store (and limit) each compressed SST file on its own");
    // execution.checkpointing.jobmanager.max-state-size
    // (CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE)
    // is documented as the largest state jobmanager storage accepts: 2 MiB of state against a
    // 1 mb limit must fail like 10 MiB against the default 5 MiB.
    StreamEnvironment env = bigStateJob(20);
    env.getConfiguration().setString("execution.checkpointing.jobmanager.max-state-size", "1 mb");

    Throwable error = catchJobFailure(env);

    assertThat(chainMessages(error)).contains("big-state").contains("1 mb");
  }

  private static Throwable catchJobFailure(StreamEnvironment env) {
    Throwable[] caught = new Throwable[1];
    assertThatThrownBy(
            () -> {
              try {
                env.execute("big-state");
              } catch (Exception e) {
                caught[0] = e;
                throw e;
              }
            })
        .as("the job must fail: its state is above the limit")
        .isInstanceOf(JobExecutionException.class);
    return caught[0];
  }

  @Test
  void stateAboveTheLimitFailsTheJobOnceAlsoUnderUnlimitedRestarts() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RecoveryTestSupport.keyedStateIsOnePiecePerSubtask(),
        "native RocksDB checkpoints store (and limit) each compressed SST file on its own");
    StreamEnvironment env = bigStateJob(100);
    // Exponential delay restarts forever: the limit would be hit again by every attempt.
    env.setRestartStrategy(RestartStrategy.exponentialDelay());

    Throwable error = catchJobFailure(env);

    assertThat(error.getMessage()).contains("will not restart").contains("every attempt");
    assertThat(chainMessages(error))
        .contains("big-state")
        .contains("JobManager checkpoint storage");
  }
}
