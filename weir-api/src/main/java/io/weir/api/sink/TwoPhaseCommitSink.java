package io.weir.api.sink;

import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An exactly-once sink that writes into external transactions and commits them when a checkpoint
 * completes: Flink's {@code TwoPhaseCommitSinkFunction} for Weir's {@link Sink}.
 *
 * <p>Each parallel subtask has one <em>current</em> transaction that receives the elements, and a
 * list of <em>pending</em> transactions, pre-committed by a checkpoint and waiting for it to
 * complete. The cycle, all on the task thread:
 *
 * <ol>
 *   <li>{@link #initializeState} (before {@link #createWriter}): commits with {@link
 *       #recoverAndCommit} every pending transaction of the restored state and aborts with {@link
 *       #recoverAndAbort} every restored current transaction, then begins the first transaction.
 *   <li>{@code write}: {@link #invoke} adds the element to the current transaction.
 *   <li>{@link #snapshotState}, when checkpoint <em>n</em>'s barrier passes: {@link #preCommit} the
 *       current transaction, keep it as pending for <em>n</em>, {@link #beginTransaction} a new
 *       current one, and store both in operator state.
 *   <li>{@link #notifyCheckpointComplete}{@code (n)}: {@link #commit} the pending transactions of
 *       checkpoints up to <em>n</em>, oldest first. An aborted checkpoint leaves its transaction
 *       pending; the next completed checkpoint commits it.
 *   <li>The writer's {@code close}: {@link #abort} the current transaction (its elements come after
 *       the last checkpoint, so a restore replays them). At the end of a bounded input the runtime
 *       takes a final checkpoint before closing, which commits everything written.
 * </ol>
 *
 * <p>A checkpoint may complete without this subtask hearing of it (the job fails first), so a
 * restore commits the pending transactions it finds again: {@link #commit} and {@link
 * #recoverAndCommit} must be idempotent. {@link #abort} may likewise run on a transaction that is
 * already aborted. Restored transactions are individual elements of a split list state, so on a
 * rescale each new subtask resolves its share of them.
 *
 * <p>The sink object is copied to every subtask by Java serialization: keep the transaction
 * serializer and any configuration in serializable fields and open connections in {@link
 * #beginTransaction} or lazily, never in the constructor.
 *
 * @param <IN> the type of the elements
 * @param <TXN> the transaction handle: what the serializer stores in checkpoints, plus whatever the
 *     open transaction needs while it runs
 */
public abstract class TwoPhaseCommitSink<IN, TXN>
    implements Sink<IN>, CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;

  /** Name of the operator state holding the transactions; never change it once released. */
  static final String STATE_NAME = "two-phase-commit-transactions";

  /** Version of the layout of a state element (see {@link #encode}), not of the transactions'. */
  private static final int STATE_FORMAT = 1;

  private static final byte PENDING = 0;
  private static final byte CURRENT = 1;

  private final SimpleVersionedSerializer<TXN> transactionSerializer;

  private transient ListState<byte[]> state;
  private transient TreeMap<Long, TXN> pending;
  private transient TXN current;
  private transient WriterInitContext writerContext;

  /**
   * @param transactionSerializer writes transaction handles into checkpoints; it must be {@link
   *     Serializable}, since it travels with the sink to every subtask
   */
  protected TwoPhaseCommitSink(SimpleVersionedSerializer<TXN> transactionSerializer) {
    Objects.requireNonNull(transactionSerializer, "transactionSerializer");
    if (!(transactionSerializer instanceof Serializable)) {
      throw new IllegalArgumentException(
          "The transaction serializer of "
              + getClass().getName()
              + " ("
              + transactionSerializer.getClass().getName()
              + ") must implement java.io.Serializable: the sink is copied to every subtask."
              + " Use a named class that implements both interfaces instead of a lambda or an"
              + " anonymous class.");
    }
    this.transactionSerializer = transactionSerializer;
  }

  // ---------------------------------------------------------------------------------------------
  // What a subclass implements. All of it runs on the task thread.
  // ---------------------------------------------------------------------------------------------

  /**
   * Opens a new transaction. Runs in {@link #initializeState} (before {@link #createWriter}, so
   * {@link #writerContext()} may still be empty) and in every {@link #snapshotState}.
   */
  protected abstract TXN beginTransaction() throws Exception;

  /** Adds {@code value} to the open transaction {@code txn}; runs once per element written. */
  protected abstract void invoke(TXN txn, IN value, SinkWriter.Context context) throws Exception;

  /**
   * Makes {@code txn} ready to commit: flush and make durable everything written, so that {@link
   * #commit} cannot fail for lack of data, even after a crash. Runs in {@link #snapshotState}; no
   * element is added to {@code txn} afterwards.
   *
   * <p>Throwing fails the task, not only the checkpoint: {@link #snapshotState} is the synchronous
   * part of the snapshot, and a failure there fails the task (Flink's rule since 1.11). The job
   * fails over as the restart strategy decides; the restore aborts {@code txn}, which the last
   * completed checkpoint recorded as current, and replays its elements.
   */
  protected abstract void preCommit(TXN txn) throws Exception;

  /**
   * Makes a pre-committed transaction visible. Runs in {@link #notifyCheckpointComplete} for every
   * pending transaction of a completed checkpoint, in checkpoint order. Must be idempotent: after a
   * failure the same transaction is committed again by {@link #recoverAndCommit}. Throwing fails
   * the task; the transaction stays pending and the restore commits it.
   */
  protected abstract void commit(TXN txn) throws Exception;

  /**
   * Discards a transaction. Runs when the writer is closed, for the current transaction, and by
   * default from {@link #recoverAndAbort}. May run on a transaction already aborted.
   */
  protected abstract void abort(TXN txn) throws Exception;

  /**
   * Commits a pre-committed transaction found in the restored state, in {@link #initializeState}.
   * Its checkpoint may or may not have completed, and it may already be committed; since the
   * restored checkpoint recorded it pre-committed, it is committed now. Calls {@link #commit} by
   * default; override when a recovered transaction handle needs reconnecting first.
   */
  protected void recoverAndCommit(TXN txn) throws Exception {
    commit(txn);
  }

  /**
   * Discards the transaction that was current when the restored checkpoint was taken; the elements
   * written to it after that checkpoint are replayed after the restore. Runs in {@link
   * #initializeState}. Calls {@link #abort} by default.
   */
  protected void recoverAndAbort(TXN txn) throws Exception {
    abort(txn);
  }

  // ---------------------------------------------------------------------------------------------
  // For subclasses.
  // ---------------------------------------------------------------------------------------------

  /** The transaction that receives the elements now; null before {@link #initializeState}. */
  protected final TXN currentTransaction() {
    return current;
  }

  /** Where this subtask's writer runs; empty until {@link #createWriter} was called. */
  protected final Optional<WriterInitContext> writerContext() {
    return Optional.ofNullable(writerContext);
  }

  // ---------------------------------------------------------------------------------------------
  // Called by the runtime.
  // ---------------------------------------------------------------------------------------------

  /**
   * Resolves the transactions of the restored state (pending ones committed, current ones aborted)
   * and begins the first transaction. Runs once, before {@link #createWriter}.
   */
  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    state =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>(STATE_NAME, byte[].class));
    pending = new TreeMap<>();
    List<Map.Entry<Long, TXN>> toCommit = new ArrayList<>();
    List<TXN> toAbort = new ArrayList<>();
    for (byte[] element : state.get()) {
      DataInputDeserializer in = new DataInputDeserializer(element);
      int format = in.readInt();
      if (format != STATE_FORMAT) {
        throw new IOException(
            "The state of "
                + getClass().getName()
                + " has format "
                + format
                + ", which this Weir version cannot read (it reads "
                + STATE_FORMAT
                + ")");
      }
      byte kind = in.readByte();
      long checkpointId = in.readLong();
      int version = in.readInt();
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      TXN txn = transactionSerializer.deserialize(version, bytes);
      if (kind == PENDING) {
        toCommit.add(Map.entry(checkpointId, txn));
      } else if (kind == CURRENT) {
        toAbort.add(txn);
      } else {
        throw new IOException(
            "Corrupt state of " + getClass().getName() + ": unknown transaction kind " + kind);
      }
    }
    // Oldest first, as they would have been committed without the failure.
    toCommit.sort(Map.Entry.comparingByKey());
    for (Map.Entry<Long, TXN> entry : toCommit) {
      recoverAndCommit(entry.getValue());
    }
    for (TXN txn : toAbort) {
      recoverAndAbort(txn);
    }
    current = beginTransaction();
    writeState();
  }

  /** A writer whose {@code write} calls {@link #invoke} on the current transaction. */
  @Override
  public SinkWriter<IN> createWriter(WriterInitContext context) throws Exception {
    this.writerContext = Objects.requireNonNull(context, "context");
    return new TransactionWriter();
  }

  /**
   * Pre-commits the current transaction as pending for this checkpoint and begins a new one. Runs
   * when the checkpoint barrier passes, after every element before it was written.
   */
  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    TXN txn = requireCurrent();
    long checkpointId = context.getCheckpointId();
    if (!pending.isEmpty() && pending.lastKey() >= checkpointId) {
      throw new IllegalStateException(
          "Checkpoint "
              + checkpointId
              + " of "
              + getClass().getName()
              + " comes after checkpoint "
              + pending.lastKey()
              + "; checkpoint ids must increase");
    }
    preCommit(txn);
    pending.put(checkpointId, txn);
    current = beginTransaction();
    writeState();
  }

  /** Commits the pending transactions of checkpoints up to {@code checkpointId}, oldest first. */
  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    if (pending == null) {
      return;
    }
    Iterator<TXN> due = pending.headMap(checkpointId, true).values().iterator();
    while (due.hasNext()) {
      commit(due.next());
      // Dropped only once committed: if a commit throws, the restore commits it again.
      due.remove();
    }
  }

  /**
   * Keeps the transaction of the aborted checkpoint pending: a later completed checkpoint commits
   * it, and the checkpoint of a restore records it as pending too.
   */
  @Override
  public void notifyCheckpointAborted(long checkpointId) {}

  private TXN requireCurrent() {
    if (current == null) {
      throw new IllegalStateException(
          getClass().getName()
              + " has no open transaction: initializeState(...) must run before the sink is"
              + " used, and the writer must not be used after close()");
    }
    return current;
  }

  /** One state element per transaction, so a rescale can deal them out individually. */
  private void writeState() throws Exception {
    List<byte[]> elements = new ArrayList<>(pending.size() + 1);
    for (Map.Entry<Long, TXN> entry : pending.entrySet()) {
      elements.add(encode(PENDING, entry.getKey(), entry.getValue()));
    }
    elements.add(encode(CURRENT, -1, current));
    state.update(elements);
  }

  /**
   * A state element: format, kind ({@link #PENDING} or {@link #CURRENT}), checkpoint id (-1 for the
   * current transaction), the transaction serializer's version, then its bytes with their length.
   */
  private byte[] encode(byte kind, long checkpointId, TXN txn) throws IOException {
    byte[] bytes = transactionSerializer.serialize(txn);
    DataOutputSerializer out = new DataOutputSerializer(bytes.length + 24);
    out.writeInt(STATE_FORMAT);
    out.writeByte(kind);
    out.writeLong(checkpointId);
    out.writeInt(transactionSerializer.getVersion());
    out.writeInt(bytes.length);
    out.write(bytes);
    return out.getCopyOfBuffer();
  }

  private final class TransactionWriter implements SinkWriter<IN> {
    @Override
    public void write(IN element, Context context) throws Exception {
      invoke(requireCurrent(), element, context);
    }

    /** Aborts the current transaction: whatever it holds was written after the last checkpoint. */
    @Override
    public void close() throws Exception {
      TXN txn = current;
      if (txn != null) {
        current = null;
        abort(txn);
      }
    }
  }
}
