package io.weir.connector.kafka;

import io.weir.api.SuppressRestartsException;
import io.weir.api.config.Configuration;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DeliveryGuarantee#EXACTLY_ONCE} Kafka sink: a Kafka transaction per subtask per
 * checkpoint, on {@link TwoPhaseCommitSink}. The transaction is flushed when the checkpoint's
 * barrier passes ({@link #preCommit}: its producer id and epoch go into the checkpoint) and
 * committed when the checkpoint completes; a restore commits the restored pending transactions by
 * resuming them ({@link TransactionalProducer#resume}) and then aborts every other transactional id
 * of the restored {@link Ledger}s and of this subtask's pool.
 *
 * <p>Transactional ids are {@code <prefix>-<subtask>-<n>} for {@code n} below the pool size, each
 * with one long-lived producer (a {@link Slot}). A slot whose transaction was committed is reused
 * only once a checkpoint taken after that commit has completed: until then a restore may still find
 * the transaction pending and commit it again, which must not commit a newer transaction of the
 * same id instead. For the same reason an id whose restored transaction was committed on restore is
 * left alone (not initialized, not reused) until a checkpoint of the new attempt completes.
 *
 * <p>All methods run on the sink's task thread.
 */
final class ExactlyOnceKafkaSink<IN> extends TwoPhaseCommitSink<IN, KafkaTransaction> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceKafkaSink.class);

  private final KafkaClient client;
  private final KafkaRecordSerializer<IN> serializer;
  private final String prefix;
  private final int poolSize;
  private final ExpiredTransactionPolicy expiredPolicy;

  private transient Slot[] slots;
  private transient int subtask;

  /** Name of the union state holding every subtask's ledger; never change it once released. */
  static final String LEDGER_STATE = "kafka-sink-transactional-id-ledger";

  private static final int LEDGER_FORMAT = 1;

  /** This subtask's ledger in the checkpoint; every subtask gets all ledgers back on restore. */
  private transient ListState<byte[]> ledgerState;

  /** The restored ledgers of all subtasks; null once {@link #createWriter} resolved them. */
  private transient List<Ledger> restoredLedgers;

  /**
   * The ids of every transaction pending in the restored checkpoint, whichever subtask commits it
   * on restore: nobody initializes them (which would abort one not yet committed by another
   * subtask, or bump its epoch so that a second commit after another restore from the same
   * checkpoint looks refused) until a checkpoint of this attempt has completed.
   */
  private transient Set<String> restoredPending;

  /**
   * One subtask's ledger: its pool of transactional ids and those holding pending transactions.
   *
   * @param subtask the subtask index
   * @param poolSize ids {@code <prefix>-<subtask>-0 .. poolSize - 1} may have been opened
   * @param pending ids whose transactions wait for their checkpoint to complete
   */
  record Ledger(int subtask, int poolSize, List<String> pending) {
    byte[] encode() throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      out.writeInt(LEDGER_FORMAT);
      out.writeInt(subtask);
      out.writeInt(poolSize);
      out.writeInt(pending.size());
      for (String id : pending) {
        out.writeUTF(id);
      }
      return out.getCopyOfBuffer();
    }

    static Ledger decode(byte[] bytes) throws IOException {
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int format = in.readInt();
      if (format != LEDGER_FORMAT) {
        throw new IOException(
            "The Kafka sink's transactional-id ledger has format "
                + format
                + ", which this Weir version cannot read (it reads "
                + LEDGER_FORMAT
                + ")");
      }
      int subtask = in.readInt();
      int poolSize = in.readInt();
      int count = in.readInt();
      List<String> pending = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        pending.add(in.readUTF());
      }
      return new Ledger(subtask, poolSize, pending);
    }
  }

  /** What a slot's transactional id is doing. */
  enum SlotState {
    /** No transaction; may begin one. */
    FREE,
    /** Its transaction is the current one or waits for its checkpoint to complete. */
    IN_USE,
    /** Committed; a restore from a checkpoint taken before the commit may still list it. */
    COMMITTED,
    /** Committed before checkpoint {@link Slot#freeAfter}; free once that one completes. */
    RELEASING
  }

  /** One transactional id of this subtask and its producer. */
  static final class Slot {
    final String transactionalId;
    TransactionalProducer producer;
    SlotState state = SlotState.FREE;
    long freeAfter;
    final AtomicReference<Exception> sendFailure = new AtomicReference<>();

    Slot(String transactionalId) {
      this.transactionalId = transactionalId;
    }
  }

  ExactlyOnceKafkaSink(
      KafkaClient client,
      KafkaRecordSerializer<IN> serializer,
      String prefix,
      int poolSize,
      ExpiredTransactionPolicy expiredPolicy) {
    super(new KafkaTransaction.Serializer());
    this.client = client;
    this.serializer = serializer;
    this.prefix = prefix;
    this.poolSize = poolSize;
    this.expiredPolicy = expiredPolicy;
  }

  String transactionalId(int subtaskIndex, int n) {
    return prefix + "-" + subtaskIndex + "-" + n;
  }

  @Override
  public void validate(Configuration jobConfiguration) {
    TransactionTimeoutCheck.check(client, jobConfiguration);
  }

  /** The serializer turns each element into a producer record as it comes. */
  @Override
  public boolean keepsElements() {
    return false;
  }

  /**
   * Reads every subtask's restored ledger, then commits this subtask's share of the restored
   * pending transactions (in {@code super}).
   */
  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    ledgerState =
        context
            .getOperatorStateStore()
            .getUnionListState(new ListStateDescriptor<>(LEDGER_STATE, byte[].class));
    restoredLedgers = new ArrayList<>();
    restoredPending = new HashSet<>();
    for (byte[] element : ledgerState.get()) {
      Ledger ledger = Ledger.decode(element);
      restoredLedgers.add(ledger);
      restoredPending.addAll(ledger.pending());
    }
    super.initializeState(context);
  }

  /**
   * Opens this subtask's pool of ids, which aborts whatever earlier attempts left open under them,
   * and aborts the ids of restored ledgers of subtasks that no longer exist (old subtask {@code s}
   * is handled by new subtask {@code s % parallelism}); then the writer. Ids of restored pending
   * transactions are left alone (see {@link #restoredPending}).
   */
  @Override
  public SinkWriter<IN> createWriter(WriterInitContext context) throws Exception {
    subtask = context.subtaskIndex();
    int parallelism = context.parallelism();
    Set<String> pending = restoredPending == null ? Set.of() : restoredPending;
    slots = new Slot[poolSize];
    for (int n = 0; n < poolSize; n++) {
      slots[n] = new Slot(transactionalId(subtask, n));
      if (pending.contains(slots[n].transactionalId)) {
        slots[n].state = SlotState.COMMITTED; // opened once released
      } else {
        slots[n].producer = openAborting(slots[n].transactionalId);
      }
    }
    if (restoredLedgers != null) {
      for (Ledger ledger : restoredLedgers) {
        if (ledger.subtask() % parallelism != subtask) {
          continue; // another subtask's to resolve
        }
        for (int n = 0; n < ledger.poolSize(); n++) {
          String id = transactionalId(ledger.subtask(), n);
          boolean ownPool = ledger.subtask() == subtask && n < poolSize;
          if (!ownPool && !pending.contains(id)) {
            openAborting(id).close();
          }
        }
      }
    }
    restoredLedgers = null;
    restoredPending = null;
    SinkWriter<IN> writer = super.createWriter(context);
    return new SinkWriter<>() {
      @Override
      public void write(IN element, Context ctx) throws Exception {
        writer.write(element, ctx);
      }

      @Override
      public void close() throws Exception {
        try {
          writer.close(); // aborts the current transaction
        } finally {
          closeSlots();
        }
      }
    };
  }

  /** A producer for {@code id} whose initialization aborts any transaction open under it. */
  private TransactionalProducer openAborting(String id) {
    TransactionalProducer producer = new TransactionalProducer(client.clientProperties(), id);
    try {
      producer.producer.initTransactions();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      producer.close();
      throw new KafkaConnectorException(
          "No answer from the Kafka cluster at "
              + client.bootstrapServers()
              + " (bootstrap.servers) within max.block.ms while initializing transactional id '"
              + id
              + "' (which aborts what an earlier attempt left open under it). Check that the"
              + " address is right and the brokers are up and reachable from here.",
          e);
    } catch (RuntimeException e) {
      producer.close();
      throw e;
    }
    return producer;
  }

  private void closeSlots() {
    if (slots == null) {
      return;
    }
    for (Slot slot : slots) {
      if (slot.producer != null) {
        slot.producer.close();
        slot.producer = null;
      }
    }
  }

  @Override
  protected KafkaTransaction beginTransaction() {
    KafkaTransaction txn = new KafkaTransaction();
    if (slots != null) {
      bind(txn);
    }
    return txn;
  }

  /** Gives {@code txn} a free slot of the pool and begins its Kafka transaction. */
  private void bind(KafkaTransaction txn) {
    for (Slot slot : slots) {
      if (slot.state == SlotState.FREE) {
        if (slot.producer == null) {
          slot.producer = openAborting(slot.transactionalId);
        }
        slot.state = SlotState.IN_USE;
        slot.sendFailure.set(null);
        slot.producer.producer.beginTransaction();
        txn.slot = slot;
        txn.transactionalId = slot.transactionalId;
        return;
      }
    }
    throw new KafkaConnectorException(
        "KafkaSink subtask "
            + subtask
            + " has no free transactional id: all "
            + poolSize
            + " ids "
            + transactionalId(subtask, 0)
            + ".."
            + (poolSize - 1)
            + " hold transactions that wait for checkpoints to complete (or committed ones a"
            + " completed checkpoint does not cover yet). Checkpoints are failing or slow: see"
            + " why, or raise setTransactionalIdPoolSize(...).");
  }

  @Override
  protected void invoke(KafkaTransaction txn, IN value, SinkWriter.Context context)
      throws Exception {
    if (txn.slot == null) {
      bind(txn); // the first transaction began before the writer knew its subtask
    }
    Slot slot = txn.slot;
    Exception failed = slot.sendFailure.get();
    if (failed != null) {
      throw failed;
    }
    ProducerRecord<byte[], byte[]> record = serializer.serialize(value, context.timestamp());
    slot.producer.producer.send(
        record,
        (metadata, e) -> {
          if (e != null) {
            slot.sendFailure.compareAndSet(
                null,
                new KafkaConnectorException(
                    "Writing a record to topic '"
                        + record.topic()
                        + "' in transaction '"
                        + slot.transactionalId
                        + "' at "
                        + client.bootstrapServers()
                        + " failed: "
                        + e,
                    e));
          }
        });
    txn.hasRecords = true;
  }

  /** Flushes: every record is on the brokers before the checkpoint records the transaction. */
  @Override
  protected void preCommit(KafkaTransaction txn) throws Exception {
    if (txn.slot == null) {
      return; // nothing was written
    }
    TransactionalProducer producer = txn.slot.producer;
    producer.producer.flush();
    Exception failed = txn.slot.sendFailure.get();
    if (failed != null) {
      throw failed;
    }
    txn.producerId = producer.producerId();
    txn.epoch = producer.epoch();
    txn.transactionV2 = producer.transactionV2();
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    if (slots == null) {
      throw new IllegalStateException("createWriter must run before the first checkpoint");
    }
    for (Slot slot : slots) {
      if (slot.state == SlotState.COMMITTED) {
        slot.state = SlotState.RELEASING;
        slot.freeAfter = context.getCheckpointId();
      }
    }
    super.snapshotState(context);
    List<String> pending = new ArrayList<>();
    Slot current = currentTransaction().slot;
    for (Slot slot : slots) {
      if (slot.state == SlotState.IN_USE && slot != current) {
        pending.add(slot.transactionalId);
      }
    }
    ledgerState.update(List.of(new Ledger(subtask, poolSize, pending).encode()));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    if (slots != null) {
      for (Slot slot : slots) {
        if (slot.state == SlotState.RELEASING && slot.freeAfter <= checkpointId) {
          slot.state = SlotState.FREE;
        }
      }
    }
  }

  @Override
  protected void commit(KafkaTransaction txn) throws Exception {
    Slot slot = txn.slot;
    if (slot == null) {
      recoverAndCommit(txn);
      return;
    }
    try {
      slot.producer.producer.commitTransaction();
    } catch (ProducerFencedException
        | InvalidProducerEpochException
        | InvalidTxnStateException
        | InvalidPidMappingException
        | TransactionAbortableException e) {
      refused(txn, e);
      // The producer is unusable after such an error: a fresh one for the same id.
      slot.producer.close();
      slot.producer = openAborting(slot.transactionalId);
    }
    txn.slot = null;
    slot.state = SlotState.COMMITTED;
  }

  /** Commits a transaction of the restored checkpoint by resuming it with its id and epoch. */
  @Override
  protected void recoverAndCommit(KafkaTransaction txn) throws Exception {
    if (!txn.hasRecords || txn.transactionalId == null) {
      return;
    }
    try (TransactionalProducer producer =
        new TransactionalProducer(client.clientProperties(), txn.transactionalId)) {
      producer.resume(txn.producerId, txn.epoch, txn.transactionV2);
      producer.producer.commitTransaction();
      LOG.info("Committed restored transaction {}", txn);
    } catch (ProducerFencedException
        | InvalidProducerEpochException
        | InvalidTxnStateException
        | InvalidPidMappingException
        | TransactionAbortableException e) {
      refused(txn, e);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw client.unreachable("committing restored transaction " + txn, e);
    }
  }

  /** Follows the {@link ExpiredTransactionPolicy} for a commit the broker refused. */
  private void refused(KafkaTransaction txn, KafkaException e) {
    String message =
        "Kafka at "
            + client.bootstrapServers()
            + " refused to commit transaction "
            + txn
            + " of a completed checkpoint ("
            + e
            + "): the broker has aborted it, most likely because it stayed open longer than"
            + " transaction.timeout.ms = "
            + TransactionTimeoutCheck.transactionTimeoutMs(client)
            + " ms (for example while the job was down). Its records are LOST from the output.";
    if (expiredPolicy == ExpiredTransactionPolicy.LOG_AND_CONTINUE) {
      LOG.error("{} Going on (ExpiredTransactionPolicy.LOG_AND_CONTINUE).", message, e);
      return;
    }
    throw new SuppressRestartsException(
        message
            + " The job fails without restarting (ExpiredTransactionPolicy.FAIL), since a restart"
            + " would meet the same aborted transaction. Raise transaction.timeout.ms, or choose"
            + " ExpiredTransactionPolicy.LOG_AND_CONTINUE to go on without these records.",
        e);
  }

  @Override
  protected void abort(KafkaTransaction txn) {
    Slot slot = txn.slot;
    if (slot == null || slot.producer == null) {
      return;
    }
    txn.slot = null;
    try {
      slot.producer.producer.abortTransaction();
      slot.state = SlotState.FREE;
    } catch (KafkaException e) {
      // A restore aborts this id again: it is in the ledger.
      LOG.warn("Aborting transaction {} failed: {}", txn, e.toString());
    }
  }

  /**
   * Nothing here: the transaction that was current at the checkpoint is aborted in {@link
   * #createWriter} with every other id of the restored ledgers.
   */
  @Override
  protected void recoverAndAbort(KafkaTransaction txn) {}
}
