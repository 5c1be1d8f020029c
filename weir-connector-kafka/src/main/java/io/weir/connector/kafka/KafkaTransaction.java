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
 * <p>The ids a subtask may have opened are not recorded here but in its ledger ({@link
 * ExactlyOnceKafkaSink.Ledger}), a union state that every subtask gets back on restore.
 */
final class KafkaTransaction {
  /** Null for the first transaction until its subtask is known (its first record). */
  String transactionalId;

  long producerId = -1;
  short epoch = -1;
  boolean transactionV2;
  boolean hasRecords;

  /** The pool slot whose producer runs this transaction; null once restored from a checkpoint. */
  transient ExactlyOnceKafkaSink.Slot slot;

  @Override
  public String toString() {
    return transactionalId == null
        ? "(transaction without id)"
        : "'" + transactionalId + "' (producer id " + producerId + ", epoch " + epoch + ")";
  }

  /** Version 1: id, producer id and epoch, protocol v2 flag, has-records flag. */
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
      return txn;
    }
  }
}
