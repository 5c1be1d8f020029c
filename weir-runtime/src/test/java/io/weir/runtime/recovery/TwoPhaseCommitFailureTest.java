package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of {@link TwoPhaseCommitSink} when its hooks throw, as its javadoc states it: a
 * {@code preCommit} that throws fails the task (it runs in the synchronous part of the snapshot,
 * Flink's rule), the job fails over and the restore aborts the transaction and replays its
 * elements; a {@code commit} that throws fails the task too, the transaction stays pending and the
 * restore commits it. Either way the committed output is the input exactly once.
 */
@Timeout(60)
@TestMatrix
class TwoPhaseCommitFailureTest {

  static final long PER_SPLIT = 5_000;

  /** An in-memory transactional store shared by every copy of the sink through its name. */
  static final class Store {
    static final ConcurrentHashMap<String, Store> BY_NAME = new ConcurrentHashMap<>();

    final Map<String, List<Long>> open = new HashMap<>();
    final Map<String, List<Long>> preCommitted = new HashMap<>();
    final Set<String> committedTransactions = new HashSet<>();
    final List<Long> committed = new ArrayList<>();
    int preCommits;
    int commits;

    synchronized void begin(String txn) {
      open.put(txn, new ArrayList<>());
    }

    synchronized void write(String txn, long value) {
      open.get(txn).add(value);
    }

    synchronized void preCommit(String txn) {
      preCommitted.put(txn, open.remove(txn));
    }

    synchronized void commit(String txn) {
      if (committedTransactions.add(txn)) {
        committed.addAll(preCommitted.remove(txn));
      }
    }

    synchronized void abort(String txn) {
      open.remove(txn);
      preCommitted.remove(txn);
    }

    synchronized List<Long> committed() {
      return new ArrayList<>(committed);
    }
  }

  /** Which hook throws, once, on its n-th call. */
  enum Failing {
    PRE_COMMIT,
    COMMIT
  }

  static final class Names implements SimpleVersionedSerializer<String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String txn) {
      return txn.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] serialized) {
      return new String(serialized, StandardCharsets.UTF_8);
    }
  }

  static final class StoreSink extends TwoPhaseCommitSink<Long, String> {
    private static final long serialVersionUID = 1L;
    private final String store = UUID.randomUUID().toString();
    private final Failing failing;
    private final int failAt;

    StoreSink(Failing failing, int failAt) {
      super(new Names());
      this.failing = failing;
      this.failAt = failAt;
      Store.BY_NAME.put(store, new Store());
    }

    Store store() {
      return Store.BY_NAME.get(store);
    }

    @Override
    protected String beginTransaction() {
      String txn = UUID.randomUUID().toString();
      store().begin(txn);
      return txn;
    }

    @Override
    protected void invoke(String txn, Long value, SinkWriter.Context context) {
      store().write(txn, value);
    }

    @Override
    protected void preCommit(String txn) {
      Store s = store();
      synchronized (s) {
        if (failing == Failing.PRE_COMMIT && ++s.preCommits == failAt) {
          throw new IllegalStateException("pre-commit refused");
        }
      }
      s.preCommit(txn);
    }

    @Override
    protected void commit(String txn) {
      Store s = store();
      synchronized (s) {
        if (failing == Failing.COMMIT && ++s.commits == failAt) {
          throw new IllegalStateException("commit refused");
        }
      }
      s.commit(txn);
    }

    @Override
    protected void abort(String txn) {
      store().abort(txn);
    }
  }

  private static JobExecutionResult run(StoreSink sink) throws Exception {
    return start(sink).getJobExecutionResult().get();
  }

  private static JobClient start(StoreSink sink) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    env.fromSource(CountingSource.bounded(PER_SPLIT), "numbers", Types.LONG)
        .map(v -> v)
        .name("slow-enough")
        .sinkTo(sink);
    return env.executeAsync("two-phase-commit-failure");
  }

  private static void assertExactlyOnce(StoreSink sink) {
    List<Long> committed = sink.store().committed();
    committed.sort(null);
    assertThat(committed)
        .containsExactlyElementsOf(LongStream.range(0, PER_SPLIT).boxed().toList());
  }

  @Test
  void aPreCommitThatThrowsFailsTheTaskAndTheRestoreReplaysItsElements() throws Exception {
    StoreSink sink = new StoreSink(Failing.PRE_COMMIT, 1);

    JobExecutionResult result = run(sink);

    assertThat(result.metrics()).containsEntry("job.restarts", 1L);
    assertExactlyOnce(sink);
  }

  @Test
  void aCommitThatThrowsFailsTheTaskAndTheRestoreCommitsTheTransaction() throws Exception {
    StoreSink sink = new StoreSink(Failing.COMMIT, 1);

    JobClient job = start(sink);
    JobExecutionResult result = job.getJobExecutionResult().get();

    assertThat(result.metrics()).containsEntry("job.restarts", 1L);
    assertExactlyOnce(sink);
    // The flight recorder keeps the failed commit's reason on the sink's lane of its checkpoint,
    // and the commits of the checkpoints after the restore.
    List<CheckpointStatistics.SinkCommit> commits =
        job.getCheckpointStatistics().stream()
            .flatMap(c -> c.subtasks().stream())
            .map(CheckpointStatistics.SubtaskCheckpointStatistics::commit)
            .filter(java.util.Objects::nonNull)
            .toList();
    assertThat(commits)
        .anyMatch(c -> c.failure() != null && c.failure().contains("commit refused"))
        .anyMatch(c -> c.failure() == null && c.durationMillis() >= 0);
  }
}
