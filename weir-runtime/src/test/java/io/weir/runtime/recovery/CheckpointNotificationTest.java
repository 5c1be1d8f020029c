package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.checkpointDirs;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckpointListener}s hear of every completed checkpoint in increasing order, and of a
 * checkpoint aborted by its timeout; with enough tolerable failures the job goes on.
 *
 * <p>The job: source and a map (one task), then a sink in a task of its own. The map's {@code
 * snapshotState} is made to block for one checkpoint B, longer than the checkpoint timeout, so the
 * coordinator aborts B; the test releases the map once the sink heard of the abort.
 */
@Timeout(60)
@TestMatrix
class CheckpointNotificationTest {

  @TempDir Path checkpoints;

  /** What the functions of one job saw, and the switch that makes one snapshot slow. */
  static final class Probe {
    static final ConcurrentHashMap<String, Probe> PROBES = new ConcurrentHashMap<>();

    final String id = UUID.randomUUID().toString();
    final List<Long> mapCompleted = new CopyOnWriteArrayList<>();
    final List<Long> mapAborted = new CopyOnWriteArrayList<>();
    final List<Long> sinkCompleted = new CopyOnWriteArrayList<>();
    final List<Long> sinkAborted = new CopyOnWriteArrayList<>();
    final AtomicBoolean armed = new AtomicBoolean();
    final AtomicLong blockedId = new AtomicLong(-1);
    final CountDownLatch blocked = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    Probe() {
      PROBES.put(id, this);
    }
  }

  /** Identity map with operator state whose snapshot blocks once when armed. */
  static final class SlowSnapshotMap extends RichMapFunction<Long, Long>
      implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final String probeId;
    private transient ListState<Long> seen;
    private transient long count;

    SlowSnapshotMap(Probe probe) {
      this.probeId = probe.id;
    }

    @Override
    public Long map(Long value) {
      count++;
      return value;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      seen =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("seen", Types.LONG));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      seen.update(List.of(count));
      Probe probe = Probe.PROBES.get(probeId);
      if (probe.armed.compareAndSet(true, false)) {
        probe.blockedId.set(context.getCheckpointId());
        probe.blocked.countDown();
        if (!probe.release.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("never released");
        }
      }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      Probe.PROBES.get(probeId).mapCompleted.add(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
      Probe.PROBES.get(probeId).mapAborted.add(checkpointId);
    }
  }

  /** A sink in a task of its own that records the notifications it gets. */
  static final class ListeningSink implements SinkFunction<Long>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final String probeId;

    ListeningSink(Probe probe) {
      this.probeId = probe.id;
    }

    @Override
    public void invoke(Long value, Context context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      Probe.PROBES.get(probeId).sinkCompleted.add(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
      Probe.PROBES.get(probeId).sinkAborted.add(checkpointId);
    }
  }

  record Run(Probe probe, long timedOut, JobExecutionResult result, Path jobDir) {}

  /** Runs the job through one timed-out checkpoint and some completed ones, then ends it. */
  Run runWithOneTimedOutCheckpoint() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setCheckpointTimeout(Duration.ofMillis(500))
        .setTolerableCheckpointFailureNumber(5);
    env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    env.setRestartStrategy(RestartStrategy.none());
    Probe probe = new Probe();
    CountingSource source = CountingSource.gated(1000);
    source.control().allow(50);
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .map(new SlowSnapshotMap(probe))
        .uid("slow")
        .rebalance()
        .addSink(new ListeningSink(probe))
        .uid("sink");
    JobClient client = env.executeAsync("notifications");

    await()
        .atMost(WAIT)
        .until(() -> probe.sinkCompleted.size() >= 2 && probe.mapCompleted.size() >= 2);
    probe.armed.set(true);
    assertThat(probe.blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    long timedOut = probe.blockedId.get();
    await().atMost(WAIT).until(() -> probe.sinkAborted.contains(timedOut));
    probe.release.countDown();
    await()
        .atMost(WAIT)
        .until(
            () ->
                probe.mapAborted.contains(timedOut)
                    && probe.mapCompleted.stream().anyMatch(id -> id > timedOut)
                    && probe.sinkCompleted.stream().anyMatch(id -> id > timedOut));
    source.control().finish();
    JobExecutionResult result =
        client.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    return new Run(probe, timedOut, result, jobDir(checkpoints, client));
  }

  @Test
  void listenersSeeCompletedCheckpointsInOrderAndTheTimedOutOneAborted() throws Exception {
    Run run = runWithOneTimedOutCheckpoint();
    Probe probe = run.probe();

    for (List<Long> completed : List.of(probe.mapCompleted, probe.sinkCompleted)) {
      assertThat(completed).isSorted().doesNotHaveDuplicates().doesNotContain(run.timedOut());
    }
    assertThat(probe.mapAborted).contains(run.timedOut());
    assertThat(probe.sinkAborted).contains(run.timedOut());
    assertThat(probe.mapCompleted).doesNotContainAnyElementsOf(probe.mapAborted);
    assertThat(run.result().metrics().get("job.checkpoints.failed")).isGreaterThanOrEqualTo(1L);
    assertThat(run.result().metrics().get("job.checkpoints.lastId")).isGreaterThan(run.timedOut());
  }

  @Test
  void theLateStateOfATimedOutCheckpointIsNotLeftBehind() throws Exception {
    // The map's task writes its state files for the timed-out checkpoint after the coordinator
    // aborted it and deleted its directory. Nothing references them: they must be removed, not
    // left as an orphaned chk-<n> directory.
    Run run = runWithOneTimedOutCheckpoint();

    assertThat(checkpointDirs(run.jobDir()))
        .as(
            "chk-* directories left after the job finished (the timed-out one was %s)",
            run.timedOut())
        .isEmpty();
  }
}
