package io.weir.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A two-phase-commit sink into an in-memory transactional store: what the store shows as committed
 * after a run must be the input exactly once, however the run was interrupted (snapshot + restore
 * anywhere, or a crash after a checkpoint with or without its completion notified).
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class TwoPhaseCommitSinkHarnessTest {

  /**
   * A store with transactions, like a database or Kafka: writes go into an open transaction,
   * pre-commit makes it durable, commit makes it visible (once, however often it is called).
   */
  static final class TransactionalStore {
    private static final Map<String, TransactionalStore> BY_NAME = new HashMap<>();

    final Map<String, List<String>> open = new HashMap<>();
    final Map<String, List<String>> preCommitted = new HashMap<>();
    final Set<String> committedTransactions = new HashSet<>();
    final List<String> committed = new ArrayList<>();

    static synchronized TransactionalStore named(String name) {
      return BY_NAME.computeIfAbsent(name, n -> new TransactionalStore());
    }

    static synchronized void reset(String name) {
      BY_NAME.put(name, new TransactionalStore());
    }

    void begin(String txn) {
      open.put(txn, new ArrayList<>());
    }

    void write(String txn, String value) {
      List<String> t = open.get(txn);
      if (t == null) {
        throw new IllegalStateException("write into " + txn + ", which is not open");
      }
      t.add(value);
    }

    void preCommit(String txn) {
      List<String> t = open.remove(txn);
      if (t == null) {
        throw new IllegalStateException("pre-commit of " + txn + ", which is not open");
      }
      preCommitted.put(txn, t);
    }

    void commit(String txn) {
      if (committedTransactions.contains(txn)) {
        return; // idempotent
      }
      List<String> t = preCommitted.remove(txn);
      if (t == null) {
        throw new IllegalStateException("commit of " + txn + ", which was not pre-committed");
      }
      committed.addAll(t);
      committedTransactions.add(txn);
    }

    void abort(String txn) {
      open.remove(txn);
    }
  }

  /** Transaction handles are their ids. */
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

  static final AtomicLong TRANSACTION_IDS = new AtomicLong();

  /** The sink: each transaction is one of the store's. */
  static class StoreSink extends TwoPhaseCommitSink<String, String> {
    private static final long serialVersionUID = 1L;
    final String store;

    StoreSink(String store) {
      super(new IdSerializer());
      this.store = store;
    }

    TransactionalStore store() {
      return TransactionalStore.named(store);
    }

    @Override
    protected String beginTransaction() {
      String id = "txn-" + TRANSACTION_IDS.incrementAndGet();
      store().begin(id);
      return id;
    }

    @Override
    protected void invoke(String txn, String value, SinkWriter.Context context) {
      store().write(txn, value);
    }

    @Override
    protected void preCommit(String txn) {
      store().preCommit(txn);
    }

    @Override
    protected void commit(String txn) {
      store().commit(txn);
    }

    @Override
    protected void abort(String txn) {
      store().abort(txn);
    }
  }

  /** What the store named {@code name} shows as committed. */
  static ExternalOutput<String> committedIn(String name) {
    return new ExternalOutput<>() {
      @Override
      public void reset() {
        TransactionalStore.reset(name);
      }

      @Override
      public List<String> read() {
        TransactionalStore store = TransactionalStore.named(name);
        if (!store.open.isEmpty() || !store.preCommitted.isEmpty()) {
          // Left-over transactions are not visible; they would time out in a real system.
          return appendLeftovers(store);
        }
        return store.committed;
      }
    };
  }

  private static List<String> appendLeftovers(TransactionalStore store) {
    List<String> out = new ArrayList<>(store.committed);
    store.preCommitted.forEach((txn, values) -> out.add("pre-committed, never committed: " + txn));
    return out;
  }

  static final List<String> INPUT = List.of("a", "b", "c", "d", "e", "f");

  @Test
  void committedExactlyOnce() {
    OperatorHarness.forSink(new StoreSink("exactly-once"))
        .input(INPUT)
        .expectExternalOutput(committedIn("exactly-once"), INPUT)
        .verify();
  }

  /** Without the final checkpoint nothing after the last checkpoint is committed. */
  @Test
  void withoutFinalCheckpointTheTailIsNeverCommitted() {
    assertThat(
            OperatorHarness.forSink(new StoreSink("no-final"))
                .input(INPUT)
                .withoutFinalCheckpoint()
                .runUninterrupted())
        .isEmpty();
    assertThat(TransactionalStore.named("no-final").committed).isEmpty();
  }

  /** A sink whose commit is not idempotent double-commits after a restore: caught. */
  static final class NonIdempotentSink extends StoreSink {
    private static final long serialVersionUID = 1L;

    NonIdempotentSink(String store) {
      super(store);
    }

    @Override
    protected void recoverAndCommit(String txn) {
      // Re-writes the transaction's data instead of committing the pre-committed one.
      TransactionalStore s = store();
      if (s.committedTransactions.contains(txn)) {
        s.committed.add("again:" + txn);
      } else {
        s.commit(txn);
      }
    }
  }

  @Test
  void nonIdempotentRecoveryIsCaught() {
    assertThatThrownBy(
            () ->
                OperatorHarness.forSink(new NonIdempotentSink("twice"))
                    .input(INPUT)
                    .expectExternalOutput(committedIn("twice"), INPUT)
                    .verify())
        .isInstanceOf(HarnessVerificationError.class)
        .hasMessageContaining("external output differs")
        .hasMessageContaining(
            "snapshot + restore into a fresh instance was injected before step 0");
  }
}
