package io.weir.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.SuppressRestartsException;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.OperatorStateStore;
import io.weir.runtime.testing.ExternalOutput;
import io.weir.runtime.testing.OperatorHarness;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once Kafka sink against a real broker: through the operator harness (snapshot and
 * restore at every step, crashes before and after the checkpoint's notification), the policy for
 * transactions the broker aborted, and the transaction timeout checks at submission.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaSinkTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  private Sink<String> exactlyOnce(String topic, String prefix, ExpiredTransactionPolicy policy) {
    return KafkaSink.<String>builder()
        .setBootstrapServers(KAFKA.bootstrapServers())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(prefix)
        .setTransactionalIdPoolSize(3)
        .setExpiredTransactionPolicy(policy)
        .setProperty("transaction.timeout.ms", "60000")
        // A producer that initializes an id right after its last transaction was committed or
        // aborted is told to retry while the markers are written: retried after 10 ms, not the
        // client's default backoff, which grows to a second.
        .setProperty("retry.backoff.ms", "10")
        .setProperty("retry.backoff.max.ms", "100")
        .setRecordSerializer(KafkaRecordSerializer.valueAsString(topic))
        .build();
  }

  /** What a read_committed consumer sees of a topic since the last reset. */
  static final class CommittedRecords implements ExternalOutput<String> {
    private final String topic;
    private long from;

    CommittedRecords(String topic) {
      this.topic = topic;
    }

    @Override
    public void reset() {
      from = size();
    }

    @Override
    public List<String> read() {
      try {
        KAFKA.awaitNoOpenTransaction(topic, Duration.ofSeconds(30));
        List<String> all = KAFKA.readCommitted(topic);
        return all.subList((int) from, all.size());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    private long size() {
      try {
        KAFKA.awaitNoOpenTransaction(topic, Duration.ofSeconds(30));
        return KAFKA.readCommitted(topic).size();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void exactlyOnceUnderSnapshotRestoreAndCrashAtEveryStep() throws Exception {
    KAFKA.createTopic("harness", 1);
    OperatorHarness.forSink(exactlyOnce("harness", "harness", ExpiredTransactionPolicy.FAIL))
        .input("a", "b", "c")
        .expectExternalOutput(new CommittedRecords("harness"), List.of("a", "b", "c"))
        .verify();
  }

  @Test
  void aSecondRestoreFromTheSameCheckpointCommitsItsTransactionAgainWithoutAFalseAlarm()
      throws Exception {
    KAFKA.createTopic("twice", 1);
    Sink<String> sink = exactlyOnce("twice", "twice", ExpiredTransactionPolicy.FAIL);
    // Attempt 1: checkpoint 1 pre-commits "a"; the attempt dies before the notification.
    MemoryState first = new MemoryState(null);
    ExactlyOnceKafkaSink<String> one = copy(sink);
    one.initializeState(first);
    SinkWriter<String> w1 = one.createWriter(new WriterInitContext(0, 1, 0));
    w1.write("a", () -> null);
    one.snapshotState(checkpoint(1));
    Map<String, List<byte[]>> checkpoint = first.snapshot();

    // Attempt 2 restores checkpoint 1 (commits "a"), writes "b", pre-commits it, dies too.
    ExactlyOnceKafkaSink<String> two = copy(sink);
    two.initializeState(new MemoryState(checkpoint));
    SinkWriter<String> w2 = two.createWriter(new WriterInitContext(0, 1, 1));
    w2.write("b", () -> null);
    two.snapshotState(checkpoint(2));

    // Attempt 3 restores checkpoint 1 again: "a" is committed already, which is no loss.
    ExactlyOnceKafkaSink<String> three = copy(sink);
    three.initializeState(new MemoryState(checkpoint));
    SinkWriter<String> w3 = three.createWriter(new WriterInitContext(0, 1, 2));
    w3.write("c", () -> null);
    three.snapshotState(checkpoint(2));
    three.notifyCheckpointComplete(2);
    w3.write("d", () -> null);
    three.snapshotState(checkpoint(3));
    three.notifyCheckpointComplete(3);
    w3.write("e", () -> null);
    three.snapshotState(checkpoint(4));
    three.notifyCheckpointComplete(4);
    w3.close();
    w2.close();
    w1.close();
    KAFKA.awaitNoOpenTransaction("twice", Duration.ofSeconds(30));
    assertThat(KAFKA.readCommitted("twice")).containsExactly("a", "c", "d", "e");
  }

  @Test
  void aCommitRefusedAsExpiredFailsWithoutRestartOrIsLoggedByPolicy() throws Exception {
    KAFKA.createTopic("expired", 1);
    Sink<String> sink = exactlyOnce("expired", "expired", ExpiredTransactionPolicy.FAIL);
    MemoryState first = new MemoryState(null);
    ExactlyOnceKafkaSink<String> before = copy(sink);
    before.initializeState(first);
    SinkWriter<String> writer = before.createWriter(new WriterInitContext(0, 1, 0));
    writer.write("lost", () -> null);
    before.snapshotState(checkpoint(1));
    Map<String, List<byte[]>> checkpoint = first.snapshot();
    writer.close(); // the attempt ends before checkpoint 1's notification
    // The broker aborts the pending transaction (as on transaction.timeout.ms).
    try (TransactionalProducer fence =
        new TransactionalProducer(KAFKA.producerProperties(), "expired-0-0")) {
      fence.producer.initTransactions();
    }

    ExactlyOnceKafkaSink<String> restored = copy(sink);
    assertThatThrownBy(() -> restored.initializeState(new MemoryState(checkpoint)))
        .isInstanceOf(SuppressRestartsException.class)
        .hasMessageContaining("expired-0-0")
        .hasMessageContaining("LOST")
        .hasMessageContaining("transaction.timeout.ms = 60000 ms");

    ExactlyOnceKafkaSink<String> goingOn =
        copy(exactlyOnce("expired", "expired", ExpiredTransactionPolicy.LOG_AND_CONTINUE));
    goingOn.initializeState(new MemoryState(checkpoint));
    SinkWriter<String> next = goingOn.createWriter(new WriterInitContext(0, 1, 1));
    next.write("after", () -> null);
    goingOn.snapshotState(checkpoint(2));
    goingOn.notifyCheckpointComplete(2);
    next.close();
    KAFKA.awaitNoOpenTransaction("expired", Duration.ofSeconds(30));
    assertThat(KAFKA.readCommitted("expired")).containsExactly("after");
  }

  /** A sink whose transactions the broker times out after 1.5 s (built without the checks). */
  private Sink<String> timingOut(ExpiredTransactionPolicy policy) {
    return KafkaSink.<String>builder()
        .setBootstrapServers(KAFKA.bootstrapServers())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix("timedout")
        .setTransactionalIdPoolSize(3)
        .setExpiredTransactionPolicy(policy)
        .setProperty("transaction.timeout.ms", "1500")
        .setRecordSerializer(KafkaRecordSerializer.valueAsString("timedout"))
        .build();
  }

  @Test
  void aTransactionTheBrokerTimedOutIsReportedAsLostOnRestoreAndOnNotification() throws Exception {
    KAFKA.createTopic("timedout", 1);
    // Restore: the pending transaction expired while the job was down.
    MemoryState first = new MemoryState(null);
    ExactlyOnceKafkaSink<String> before = copy(timingOut(ExpiredTransactionPolicy.FAIL));
    before.initializeState(first);
    SinkWriter<String> writer = before.createWriter(new WriterInitContext(0, 1, 0));
    writer.write("lost", () -> null);
    before.snapshotState(checkpoint(1));
    Map<String, List<byte[]>> checkpoint = first.snapshot();
    writer.close();
    KAFKA.awaitAborted("timedout-0-0", Duration.ofSeconds(30));
    ExactlyOnceKafkaSink<String> restored = copy(timingOut(ExpiredTransactionPolicy.FAIL));
    assertThatThrownBy(() -> restored.initializeState(new MemoryState(checkpoint)))
        .isInstanceOf(SuppressRestartsException.class)
        .hasMessageContaining("timedout-0-0")
        .hasMessageContaining("LOST")
        .hasMessageContaining("transaction.timeout.ms = 1500 ms");

    // Notification: the checkpoint completed only after the transaction expired.
    ExactlyOnceKafkaSink<String> live = copy(timingOut(ExpiredTransactionPolicy.LOG_AND_CONTINUE));
    live.initializeState(new MemoryState(null));
    SinkWriter<String> next = live.createWriter(new WriterInitContext(0, 1, 1));
    next.write("late", () -> null);
    live.snapshotState(checkpoint(1));
    KAFKA.awaitAborted("timedout-0-0", Duration.ofSeconds(30));
    live.notifyCheckpointComplete(1); // refused: logged, and the sink goes on
    next.write("next", () -> null);
    live.snapshotState(checkpoint(2));
    live.notifyCheckpointComplete(2);
    next.write("and on", () -> null);
    live.snapshotState(checkpoint(3));
    live.notifyCheckpointComplete(3);
    next.close();
    KAFKA.awaitNoOpenTransaction("timedout", Duration.ofSeconds(30));
    assertThat(KAFKA.readCommitted("timedout")).containsExactly("next", "and on");
  }

  @Test
  void lingeringTransactionsOfAnAttemptWithoutCheckpointAreAborted() throws Exception {
    KAFKA.createTopic("lingering", 1);
    Sink<String> sink = exactlyOnce("lingering", "lingering", ExpiredTransactionPolicy.FAIL);
    ExactlyOnceKafkaSink<String> crashed = copy(sink);
    crashed.initializeState(new MemoryState(null));
    SinkWriter<String> writer = crashed.createWriter(new WriterInitContext(0, 1, 0));
    writer.write("never", () -> null);
    crashed.snapshotState(checkpoint(1)); // pre-committed, never completed
    writer.write("never either", () -> null);
    // The process dies: nothing is closed, both transactions stay open and hold back the LSO.
    Map<TopicPartition, Long> stable = KAFKA.endOffsets("lingering", IsolationLevel.READ_COMMITTED);
    assertThat(stable.values()).containsOnly(0L);

    ExactlyOnceKafkaSink<String> fresh = copy(sink);
    fresh.initializeState(new MemoryState(null));
    SinkWriter<String> again = fresh.createWriter(new WriterInitContext(0, 1, 1));
    KAFKA.awaitNoOpenTransaction("lingering", Duration.ofSeconds(30));
    again.close();
    assertThat(KAFKA.readCommitted("lingering")).isEmpty();
  }

  @Test
  void aRestoreAtLowerParallelismAbortsTheIdsOfTheRestoredLedgers() throws Exception {
    KAFKA.createTopic("rescaled", 1);
    Sink<String> sink = exactlyOnce("rescaled", "rescaled", ExpiredTransactionPolicy.FAIL);
    // Subtask 1 of 2 writes into its current transaction after checkpoint 1, then dies.
    MemoryState second = new MemoryState(null);
    ExactlyOnceKafkaSink<String> crashed = copy(sink);
    crashed.initializeState(second);
    SinkWriter<String> writer = crashed.createWriter(new WriterInitContext(1, 2, 0));
    writer.write("committed", () -> null);
    crashed.snapshotState(checkpoint(1));
    crashed.notifyCheckpointComplete(1);
    writer.write("after the checkpoint", () -> null);
    Map<String, List<byte[]>> checkpoint = second.snapshot();
    // The open transaction holds back the last stable offset.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                !KAFKA
                    .endOffsets("rescaled", IsolationLevel.READ_COMMITTED)
                    .equals(KAFKA.endOffsets("rescaled", IsolationLevel.READ_UNCOMMITTED)));

    // The job comes back with parallelism 1: subtask 0 gets subtask 1's state, and its ledger.
    ExactlyOnceKafkaSink<String> restored = copy(sink);
    restored.initializeState(new MemoryState(checkpoint));
    SinkWriter<String> again = restored.createWriter(new WriterInitContext(0, 1, 1));
    KAFKA.awaitNoOpenTransaction("rescaled", Duration.ofSeconds(30));
    again.close();
    writer.close();
    assertThat(KAFKA.readCommitted("rescaled")).containsExactly("committed");
  }

  @Test
  void aRestoreAtHigherParallelismCommitsAPendingTransactionThatAnotherSubtaskOwns()
      throws Exception {
    KAFKA.createTopic("scaled-up", 1);
    Sink<String> sink = exactlyOnce("scaled-up", "scaled-up", ExpiredTransactionPolicy.FAIL);
    // One subtask pre-commits "a" (checkpoint 1) and "b" (checkpoint 2); neither is notified.
    MemoryState old = new MemoryState(null);
    ExactlyOnceKafkaSink<String> before = copy(sink);
    before.initializeState(old);
    SinkWriter<String> writer = before.createWriter(new WriterInitContext(0, 1, 0));
    writer.write("a", () -> null);
    before.snapshotState(checkpoint(1));
    writer.write("b", () -> null);
    before.snapshotState(checkpoint(2));
    Map<String, List<byte[]>> checkpoint = old.snapshot();

    // Restored at parallelism 2, split state dealt round robin: "b" (on id scaled-up-0-1 of
    // subtask 0's pool) goes to subtask 1; the ledger (union state) goes to both.
    List<byte[]> transactions = checkpoint.get("two-phase-commit-transactions");
    assertThat(transactions).hasSize(3); // pending "a", pending "b", current
    List<Map<String, List<byte[]>>> shares = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Map<String, List<byte[]>> share = new HashMap<>();
      share.put(
          ExactlyOnceKafkaSink.LEDGER_STATE, checkpoint.get(ExactlyOnceKafkaSink.LEDGER_STATE));
      List<byte[]> mine = new ArrayList<>();
      for (int e = i; e < transactions.size(); e += 2) {
        mine.add(transactions.get(e));
      }
      share.put("two-phase-commit-transactions", mine);
      shares.add(share);
    }
    // Subtask 0 opens its pool first, before subtask 1 commits "b".
    ExactlyOnceKafkaSink<String> zero = copy(sink);
    zero.initializeState(new MemoryState(shares.get(0)));
    SinkWriter<String> w0 = zero.createWriter(new WriterInitContext(0, 2, 1));
    ExactlyOnceKafkaSink<String> one = copy(sink);
    one.initializeState(new MemoryState(shares.get(1)));
    SinkWriter<String> w1 = one.createWriter(new WriterInitContext(1, 2, 1));
    w0.close();
    w1.close();
    writer.close();
    KAFKA.awaitNoOpenTransaction("scaled-up", Duration.ofSeconds(30));
    assertThat(KAFKA.readCommitted("scaled-up")).containsExactly("a", "b");
  }

  @Test
  void withoutGuaranteeABoundedJobStillWritesEverythingByItsEnd() throws Exception {
    KAFKA.createTopic("plain", 2);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      values.add("v" + i);
    }
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromCollection(values)
        .sinkTo(
            KafkaSink.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setRecordSerializer(KafkaRecordSerializer.valueAsString("plain"))
                .build());
    env.execute("plain");
    assertThat(KAFKA.readCommitted("plain")).containsExactlyInAnyOrderElementsOf(values);
  }

  private StreamEnvironment jobWith(Sink<String> sink) {
    StreamEnvironment env = StreamEnvironment.create();
    env.fromElements("x").sinkTo(sink);
    return env;
  }

  @Test
  void transactionTimeoutShorterThanACheckpointMayTakeIsRefusedAtSubmission() {
    StreamEnvironment env =
        jobWith(exactlyOnce("never-written", "short", ExpiredTransactionPolicy.FAIL));
    env.enableCheckpointing(Duration.ofSeconds(1));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ofSeconds(2)));
    assertThatThrownBy(() -> env.execute("short"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transaction.timeout.ms = 60000 ms is too short")
        .hasMessageContaining("execution.checkpointing.interval = 1000 ms")
        .hasMessageContaining("execution.checkpointing.timeout = 600000 ms")
        .hasMessageContaining("restart-strategy.* = 2000 ms")
        .hasMessageContaining("= 603000 ms");
  }

  @Test
  void transactionTimeoutAboveTheBrokersMaximumIsRefusedAtSubmission() {
    StreamEnvironment env =
        jobWith(
            KafkaSink.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("long")
                .setRecordSerializer(KafkaRecordSerializer.valueAsString("never-written"))
                .build()); // the default, 15 min, is above this broker's 5 min
    env.enableCheckpointing(Duration.ofSeconds(1));
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofMinutes(1));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    assertThatThrownBy(() -> env.execute("long"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transaction.timeout.ms = 900000 ms is above")
        .hasMessageContaining(
            "transaction.max.timeout.ms = " + KafkaBroker.TRANSACTION_MAX_TIMEOUT_MS + " ms");
  }

  @Test
  void exactlyOnceWithoutCheckpointingOrBrokerIsRefusedAtSubmission() {
    StreamEnvironment off =
        jobWith(exactlyOnce("never-written", "off", ExpiredTransactionPolicy.FAIL));
    assertThatThrownBy(() -> off.execute("off"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("checkpointing is off");

    StreamEnvironment unreachable =
        jobWith(
            KafkaSink.<String>builder()
                .setBootstrapServers("127.0.0.1:1")
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("unreachable")
                .setProperty("transaction.timeout.ms", "60000")
                .setProperty("default.api.timeout.ms", "2000")
                .setRecordSerializer(KafkaRecordSerializer.valueAsString("never-written"))
                .build());
    unreachable.enableCheckpointing(Duration.ofSeconds(1));
    unreachable.getCheckpointConfig().setCheckpointTimeout(Duration.ofSeconds(10));
    unreachable.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    assertThatThrownBy(() -> unreachable.execute("unreachable"))
        .hasMessageContaining("127.0.0.1:1 (bootstrap.servers)")
        .hasMessageContaining("2000 ms (default.api.timeout.ms)");
  }

  @SuppressWarnings("unchecked")
  private static ExactlyOnceKafkaSink<String> copy(Sink<String> sink) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(sink);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (ExactlyOnceKafkaSink<String>) in.readObject();
    }
  }

  private static FunctionSnapshotContext checkpoint(long id) {
    return new FunctionSnapshotContext() {
      @Override
      public long getCheckpointId() {
        return id;
      }

      @Override
      public long getCheckpointTimestamp() {
        return System.currentTimeMillis();
      }
    };
  }

  /** Operator state of byte arrays for one simulated subtask; {@link #snapshot} copies it. */
  static final class MemoryState implements FunctionInitializationContext, OperatorStateStore {
    private final Map<String, List<byte[]>> lists = new HashMap<>();
    private final boolean restored;

    MemoryState(Map<String, List<byte[]>> restoredLists) {
      this.restored = restoredLists != null;
      if (restoredLists != null) {
        restoredLists.forEach((name, list) -> lists.put(name, new ArrayList<>(list)));
      }
    }

    Map<String, List<byte[]>> snapshot() {
      Map<String, List<byte[]>> copy = new HashMap<>();
      lists.forEach((name, list) -> copy.put(name, List.copyOf(list)));
      return copy;
    }

    @Override
    public boolean isRestored() {
      return restored;
    }

    @Override
    public Optional<Long> getRestoredCheckpointId() {
      return Optional.empty();
    }

    @Override
    public OperatorStateStore getOperatorStateStore() {
      return this;
    }

    @Override
    public KeyedStateStore getKeyedStateStore() {
      throw new UnsupportedOperationException("no keyed state here");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
      List<T> list = (List<T>) lists.computeIfAbsent(descriptor.getName(), n -> new ArrayList<>());
      return new ListState<>() {
        @Override
        public Iterable<T> get() {
          return List.copyOf(list);
        }

        @Override
        public void add(T value) {
          list.add(value);
        }

        @Override
        public void update(List<T> values) {
          list.clear();
          list.addAll(values);
        }

        @Override
        public void addAll(List<T> values) {
          list.addAll(values);
        }

        @Override
        public void clear() {
          list.clear();
        }
      };
    }

    @Override
    public <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor) {
      return getListState(descriptor);
    }

    @Override
    public Set<String> getRegisteredStateNames() {
      return lists.keySet();
    }
  }
}
