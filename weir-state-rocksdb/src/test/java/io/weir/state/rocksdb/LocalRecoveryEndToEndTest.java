package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Task-local recovery in the embedded engine: a job on RocksDB with incremental checkpoints and
 * {@code execution.state-recovery.from-local} fails once after both keyed subtasks had a checkpoint
 * with state complete; both restore from their local copies (the backend logs it) and every key's
 * counts come out exactly, neither lost nor counted twice. When the job ends its local directory is
 * gone.
 */
class LocalRecoveryEndToEndTest {

  static final int KEYS = 50;
  static final long RECORDS = 600_000;
  static final long EMIT_EVERY = 100;
  static final Duration WAIT = Duration.ofSeconds(120);

  static final AtomicBoolean ARMED = new AtomicBoolean();

  /** Subtasks that saw a checkpoint complete after they had counted records. */
  static final Set<Integer> CHECKPOINTED = ConcurrentHashMap.newKeySet();

  @TempDir Path dir;

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private Logger logger;

  @BeforeEach
  void captureLog() {
    logger = (Logger) LoggerFactory.getLogger(RocksDBLocalCopy.class);
    log.start();
    logger.addAppender(log);
  }

  @AfterEach
  void releaseLog() {
    logger.detachAppender(log);
  }

  /**
   * Counts per key and emits "key=count" every {@link #EMIT_EVERY}; fails once, when {@link #ARMED}
   * and both subtasks have had a checkpoint with state complete.
   */
  static final class Counter extends KeyedProcessFunction<Long, Long, String>
      implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient boolean counted;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) throws Exception {
      if (CHECKPOINTED.size() == 2 && ARMED.compareAndSet(true, false)) {
        throw new IllegalStateException("injected failure");
      }
      long c = count.value() == null ? 1 : count.value() + 1;
      count.update(c);
      counted = true;
      if (c % EMIT_EVERY == 0) {
        out.collect(ctx.getCurrentKey() + "=" + c);
      }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (counted) {
        CHECKPOINTED.add(getRuntimeContext().getIndexOfThisSubtask());
      }
    }
  }

  private List<String> restoredFromLocal() {
    List<String> messages = new ArrayList<>();
    synchronized (log) {
      for (ILoggingEvent e : log.list) {
        if (e.getFormattedMessage().contains("from the local copy")) {
          messages.add(e.getFormattedMessage());
        }
      }
    }
    return messages;
  }

  @Test
  void aRestartedJobRestoresFromLocalCopiesAndCountsExactly() throws Exception {
    ARMED.set(true);
    CHECKPOINTED.clear();
    Path local = dir.resolve("local");
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.LOCAL_RECOVERY, true);
    conf.set(CheckpointingOptions.LOCAL_BACKUP_DIRECTORIES, local.toString());
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    env.setStateBackend(
        new EmbeddedRocksDBStateBackend(true).setDbStoragePaths(dir.resolve("db").toString()));
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig().setCheckpointStorage(dir.resolve("checkpoints").toUri().toString());
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    CollectSink<String> sink = new CollectSink<>();
    env.fromSequence(0, RECORDS - 1)
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new Counter())
        .name("counter")
        .sinkTo(sink);
    env.executeAsync("local-recovery").getJobExecutionResult().get();

    assertThat(ARMED).as("the failure was injected (the job ran long enough)").isFalse();
    assertThat(restoredFromLocal()).as("restores from local copies").hasSize(2);

    // Replayed records emit the counts they emitted before; state lost or counted twice would
    // show as counts missing or beyond the key's number of records.
    long perKey = RECORDS / KEYS;
    Map<Long, TreeSet<Long>> counts = new HashMap<>();
    for (String s : sink.results()) {
      String[] kv = s.split("=");
      counts
          .computeIfAbsent(Long.parseLong(kv[0]), k -> new TreeSet<>())
          .add(Long.parseLong(kv[1]));
    }
    assertThat(counts).hasSize(KEYS);
    List<Long> expected = new ArrayList<>();
    for (long c = EMIT_EVERY; c <= perKey; c += EMIT_EVERY) {
      expected.add(c);
    }
    for (Map.Entry<Long, TreeSet<Long>> e : counts.entrySet()) {
      assertThat(e.getValue())
          .as("counts of key %s", e.getKey())
          .containsExactlyElementsOf(expected);
    }
    // The task executor deletes the job's local directory when it releases the job.
    await().atMost(WAIT).until(() -> children(local).isEmpty());
  }

  private static List<Path> children(Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
