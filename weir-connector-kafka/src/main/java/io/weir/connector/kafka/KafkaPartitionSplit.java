package io.weir.connector.kafka;

import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * One Kafka partition and how far a source has read it: the split of a {@link KafkaSource}. Offsets
 * are always concrete (resolved when the split is created), so a checkpoint holds exactly where the
 * next record comes from.
 *
 * @param topic the topic
 * @param partition the partition of the topic
 * @param startingOffset the offset of the next record to read
 * @param stoppingOffset the offset at which a bounded source stops (exclusive), or {@link
 *     #NO_STOPPING_OFFSET}
 */
public record KafkaPartitionSplit(
    String topic, int partition, long startingOffset, long stoppingOffset) {

  /** The stopping offset of an unbounded source's split. */
  public static final long NO_STOPPING_OFFSET = Long.MIN_VALUE;

  public KafkaPartitionSplit {
    Objects.requireNonNull(topic, "topic");
    if (startingOffset < 0) {
      throw new IllegalArgumentException(
          "The starting offset of "
              + topic
              + "-"
              + partition
              + " must be resolved, not "
              + startingOffset);
    }
  }

  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  @Override
  public String toString() {
    return topic
        + "-"
        + partition
        + "@"
        + startingOffset
        + (stoppingOffset == NO_STOPPING_OFFSET ? "" : ".." + stoppingOffset);
  }

  /** Topic, partition, starting and stopping offset. */
  static final class Serializer
      implements SimpleVersionedSerializer<KafkaPartitionSplit>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(KafkaPartitionSplit split) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      out.writeUTF(split.topic());
      out.writeInt(split.partition());
      out.writeLong(split.startingOffset());
      out.writeLong(split.stoppingOffset());
      return out.getCopyOfBuffer();
    }

    @Override
    public KafkaPartitionSplit deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException(
            "Unknown Kafka split format version "
                + version
                + " (this Weir reads version 1): was the checkpoint written by a newer Weir?");
      }
      DataInputDeserializer in = new DataInputDeserializer(serialized);
      return new KafkaPartitionSplit(in.readUTF(), in.readInt(), in.readLong(), in.readLong());
    }
  }
}
