package io.weir.connector.kafka;

import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import java.io.IOException;
import java.io.Serializable;

/**
 * One Kafka transaction of an exactly-once {@link KafkaSink} subtask: what a checkpoint records of
 * it, plus the live producer while it runs.
 *
 * <p>Every transaction also carries its subtask's <em>ledger</em>: the subtask index and the size
 * of its pool of transactional ids ({@code <prefix>-<subtask>-0 .. <pool size - 1>}), which are all
 * the ids that subtask may have opened. A restore aborts every id of every ledger it receives
 * (after committing the pending transactions), so no transaction of an earlier attempt is left open
 * to hold back the last stable offset, and nothing is guessed.
 */
final class KafkaTransaction {
  /** Null for the first transaction until its subtask is known (its first record). */
  String transactionalId;

  long producerId = -1;
  short epoch = -1;
  boolean transactionV2;
  boolean hasRecords;
  int ledgerSubtask = -1;
  int ledgerPoolSize;

  /** The pool slot whose producer runs this transaction; null once restored from a checkpoint. */
  transient ExactlyOnceKafkaSink.Slot slot;

  @Override
  public String toString() {
    return transactionalId == null
        ? "(transaction without id)"
        : "'" + transactionalId + "' (producer id " + producerId + ", epoch " + epoch + ")";
  }

  /** Version 1: id, producer id and epoch, protocol v2 flag, has-records flag, ledger. */
  static final class Serializer
      implements SimpleVersionedSerializer<KafkaTransaction>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(KafkaTransaction txn) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      out.writeBoolean(txn.transactionalId != null);
      if (txn.transactionalId != null) {
        out.writeUTF(txn.transactionalId);
      }
      out.writeLong(txn.producerId);
      out.writeShort(txn.epoch);
      out.writeBoolean(txn.transactionV2);
      out.writeBoolean(txn.hasRecords);
      out.writeInt(txn.ledgerSubtask);
      out.writeInt(txn.ledgerPoolSize);
      return out.getCopyOfBuffer();
    }

    @Override
    public KafkaTransaction deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException(
            "Unknown Kafka transaction format version "
                + version
                + " (this Weir reads version 1): was the checkpoint written by a newer Weir?");
      }
      DataInputDeserializer in = new DataInputDeserializer(serialized);
      KafkaTransaction txn = new KafkaTransaction();
      txn.transactionalId = in.readBoolean() ? in.readUTF() : null;
      txn.producerId = in.readLong();
      txn.epoch = in.readShort();
      txn.transactionV2 = in.readBoolean();
      txn.hasRecords = in.readBoolean();
      txn.ledgerSubtask = in.readInt();
      txn.ledgerPoolSize = in.readInt();
      return txn;
    }
  }
}
