package io.weir.api.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.OperatorStateStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transaction protocol of {@link TwoPhaseCommitSink}, observed through a sink that logs every
 * call into a shared "external system".
 */
class TwoPhaseCommitSinkTest {

  /** What the sinks did, in order; static because each subtask works on a serialized copy. */
  static final List<String> LOG = new ArrayList<>();

  /** Committed elements, by transaction, in commit order. */
  static final Map<String, List<String>> COMMITTED = new LinkedHashMap<>();

  static final Map<String, List<String>> OPEN = new HashMap<>();

  @BeforeEach
  void clear() {
    LOG.clear();
    COMMITTED.clear();
    OPEN.clear();
  }

  @Test
  void preCommitsOnSnapshotAndCommitsOnNotification() throws Exception {
    Subtask s = new Subtask(new LoggingSink("r"), List.of());
    s.write("a").write("b").snapshot(1);
    s.write("c");
    s.notifyComplete(1);

    assertThat(LOG)
        .containsExactly(
            "begin r0",
            "invoke r0 a",
            "invoke r0 b",
            "preCommit r0",
            "begin r1",
            "invoke r1 c",
            "commit r0");
    assertThat(COMMITTED).containsExactly(Map.entry("r0", List.of("a", "b")));
  }

  @Test
  void aNotificationCommitsEveryEarlierCheckpointInOrderAndNoLaterOne() throws Exception {
    Subtask s = new Subtask(new LoggingSink("r"), List.of());
    s.write("a").snapshot(1);
    s.write("b").snapshot(2);
    s.write("c").snapshot(3);
    s.notifyComplete(2); // the notification of 1 was skipped
    s.notifyComplete(2); // repeated: nothing left to do

    assertThat(COMMITTED.keySet()).containsExactly("r0", "r1");
    s.notifyComplete(3);
    assertThat(COMMITTED.keySet()).containsExactly("r0", "r1", "r2");
  }

  @Test
  void anAbortedCheckpointStaysPendingUntilALaterOneCompletes() throws Exception {
    Subtask s = new Subtask(new LoggingSink("r"), List.of());
    s.write("a").snapshot(1);
    s.sink.notifyCheckpointAborted(1);
    s.write("b");
    List<byte[]> checkpoint2 = s.snapshot(2);

    assertThat(COMMITTED).isEmpty();
    assertThat(checkpoint2).hasSize(3); // pending r0 and r1, current r2
    s.notifyComplete(2);
    assertThat(COMMITTED.keySet()).containsExactly("r0", "r1");
  }

  @Test
  void aRestoreCommitsThePendingTransactionsAndAbortsTheCurrentOne() throws Exception {
    Subtask first = new Subtask(new LoggingSink("r"), List.of());
    first.write("a").snapshot(1);
    first.write("b");
    List<byte[]> checkpoint2 = first.snapshot(2);
    first.write("lost");
    LOG.clear();

    Subtask second = new Subtask(new LoggingSink("s"), checkpoint2);

    assertThat(LOG)
        .containsExactly(
            "recoverAndCommit r0",
            "commit r0",
            "recoverAndCommit r1",
            "commit r1",
            "recoverAndAbort r2",
            "abort r2",
            "begin s0");
    assertThat(COMMITTED).containsOnlyKeys("r0", "r1");
    assertThat(OPEN).doesNotContainKey("r2");
    // The restored transactions are resolved: the next checkpoint records only the new ones.
    assertThat(second.write("x").snapshot(3)).hasSize(2);
  }

  @Test
  void restoringTheSameCheckpointAgainCommitsAgainWithoutHarm() throws Exception {
    Subtask first = new Subtask(new LoggingSink("r"), List.of());
    List<byte[]> checkpoint1 = first.write("a").snapshot(1);
    first.notifyComplete(1);

    new Subtask(new LoggingSink("s"), checkpoint1);
    new Subtask(new LoggingSink("t"), checkpoint1);

    assertThat(COMMITTED).containsExactly(Map.entry("r0", List.of("a")));
  }

  @Test
  void onARescaleEveryTransactionIsResolvedByTheSubtaskThatGetsIt() throws Exception {
    Subtask zero = new Subtask(new LoggingSink("p"), List.of());
    Subtask one = new Subtask(new LoggingSink("q"), List.of());
    List<byte[]> all = new ArrayList<>(zero.write("a").snapshot(1));
    all.addAll(one.write("b").snapshot(1));
    LOG.clear();

    // Scale in to one subtask: it gets every element of the split list state.
    new Subtask(new LoggingSink("s"), all);

    assertThat(COMMITTED.keySet()).containsExactlyInAnyOrder("p0", "q0");
    assertThat(LOG).contains("recoverAndAbort p1", "recoverAndAbort q1");
  }

  @Test
  void closingTheWriterAbortsTheCurrentTransactionOnly() throws Exception {
    Subtask s = new Subtask(new LoggingSink("r"), List.of());
    s.write("a").snapshot(1);
    s.write("b");
    s.writer.close();
    s.notifyComplete(1);

    assertThat(LOG).contains("abort r1");
    assertThat(COMMITTED).containsOnlyKeys("r0");
    assertThatThrownBy(() -> s.write("c"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after close()");
  }

  @Test
  void theTransactionSerializerMustBeSerializable() {
    assertThatThrownBy(
            () ->
                new LoggingSink(
                    "r",
                    new SimpleVersionedSerializer<String>() {
                      @Override
                      public int getVersion() {
                        return 1;
                      }

                      @Override
                      public byte[] serialize(String obj) {
                        return new byte[0];
                      }

                      @Override
                      public String deserialize(int version, byte[] serialized) {
                        return "";
                      }
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(LoggingSink.class.getName())
        .hasMessageContaining("java.io.Serializable");
  }

  @Test
  void usingTheSinkWithoutInitializeStateFailsClearly() throws Exception {
    LoggingSink sink = new LoggingSink("r");
    SinkWriter<String> writer = sink.createWriter(new WriterInitContext(0, 1, 0));

    assertThatThrownBy(() -> writer.write("a", () -> null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("initializeState");
  }

  @Test
  void checkpointIdsMustIncrease() throws Exception {
    Subtask s = new Subtask(new LoggingSink("r"), List.of());
    s.snapshot(5);

    assertThatThrownBy(() -> s.snapshot(5))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("checkpoint ids must increase");
  }

  @Test
  void stateOfAnUnknownFormatIsRejected() {
    byte[] future = {0, 0, 0, 9, 0};

    assertThatThrownBy(() -> new Subtask(new LoggingSink("r"), List.of(future)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("format 9");
  }

  /** Transactions are ids; their elements live in {@link #OPEN} until committed. */
  static final class LoggingSink extends TwoPhaseCommitSink<String, String> {
    private static final long serialVersionUID = 1L;
    private final String prefix;
    private transient int next;

    LoggingSink(String prefix) {
      this(prefix, new IdSerializer());
    }

    LoggingSink(String prefix, SimpleVersionedSerializer<String> serializer) {
      super(serializer);
      this.prefix = prefix;
    }

    @Override
    protected String beginTransaction() {
      String txn = prefix + next++;
      LOG.add("begin " + txn);
      OPEN.put(txn, new ArrayList<>());
      return txn;
    }

    @Override
    protected void invoke(String txn, String value, SinkWriter.Context context) {
      LOG.add("invoke " + txn + " " + value);
      OPEN.get(txn).add(value);
    }

    @Override
    protected void preCommit(String txn) {
      LOG.add("preCommit " + txn);
    }

    @Override
    protected void commit(String txn) {
      LOG.add("commit " + txn);
      List<String> elements = OPEN.remove(txn);
      if (elements != null) {
        COMMITTED.put(txn, elements);
      }
    }

    @Override
    protected void abort(String txn) {
      LOG.add("abort " + txn);
      OPEN.remove(txn);
    }

    @Override
    protected void recoverAndCommit(String txn) throws Exception {
      LOG.add("recoverAndCommit " + txn);
      super.recoverAndCommit(txn);
    }

    @Override
    protected void recoverAndAbort(String txn) throws Exception {
      LOG.add("recoverAndAbort " + txn);
      super.recoverAndAbort(txn);
    }
  }

  static final class IdSerializer implements SimpleVersionedSerializer<String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String id) {
      return id.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] serialized) {
      return new String(serialized, StandardCharsets.UTF_8);
    }
  }

  /**
   * One subtask as the runtime drives it: a Java-serialized copy of the sink, {@code
   * initializeState} from the given state elements, then {@code createWriter}.
   */
  static final class Subtask {
    final LoggingSink sink;
    final SinkWriter<String> writer;
    private final List<byte[]> elements = new ArrayList<>();

    Subtask(LoggingSink prototype, List<byte[]> restored) throws Exception {
      sink = copyOf(prototype);
      restored.forEach(bytes -> elements.add(bytes.clone()));
      sink.initializeState(new InitContext(new Store(elements)));
      writer = sink.createWriter(new WriterInitContext(0, 1, 0));
    }

    Subtask write(String element) throws Exception {
      writer.write(element, () -> null);
      return this;
    }

    /** Takes checkpoint {@code id}; returns copies of the state elements it stored. */
    List<byte[]> snapshot(long id) throws Exception {
      sink.snapshotState(
          new FunctionSnapshotContext() {
            @Override
            public long getCheckpointId() {
              return id;
            }

            @Override
            public long getCheckpointTimestamp() {
              return id;
            }
          });
      return elements.stream().map(byte[]::clone).toList();
    }

    void notifyComplete(long id) throws Exception {
      sink.notifyCheckpointComplete(id);
    }

    @SuppressWarnings("unchecked")
    private static <T> T copyOf(T object) throws IOException, ClassNotFoundException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(object);
      }
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    }
  }

  /** The single list state the sink registers, over a plain list. */
  record Store(List<byte[]> elements) implements OperatorStateStore {
    @Override
    @SuppressWarnings("unchecked")
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
      assertThat(descriptor.getName()).isEqualTo(TwoPhaseCommitSink.STATE_NAME);
      List<T> list = (List<T>) elements;
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
      throw new UnsupportedOperationException("the sink uses split list state");
    }

    @Override
    public Set<String> getRegisteredStateNames() {
      return Set.of(TwoPhaseCommitSink.STATE_NAME);
    }
  }

  record InitContext(OperatorStateStore store) implements FunctionInitializationContext {
    @Override
    public boolean isRestored() {
      return false;
    }

    @Override
    public Optional<Long> getRestoredCheckpointId() {
      return Optional.empty();
    }

    @Override
    public OperatorStateStore getOperatorStateStore() {
      return store;
    }

    @Override
    public KeyedStateStore getKeyedStateStore() {
      throw new UnsupportedOperationException();
    }
  }
}
