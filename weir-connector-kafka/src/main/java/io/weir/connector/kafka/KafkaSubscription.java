package io.weir.connector.kafka;

import java.io.Serializable;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The topics a {@link KafkaSource} reads: a fixed list, or every topic matching a pattern. */
sealed interface KafkaSubscription extends Serializable {

  /** True if this subscription reads {@code topic}. */
  boolean matches(String topic);

  /**
   * The partitions of the subscribed topics now.
   *
   * @throws KafkaConnectorException if a listed topic does not exist, or Kafka does not answer
   */
  Set<TopicPartition> partitions(Admin admin, KafkaClient client);

  /** The subscribed partitions among all partitions a consumer's metadata lists. */
  default Set<TopicPartition> partitions(Map<String, List<PartitionInfo>> topics) {
    Set<TopicPartition> result = new HashSet<>();
    topics.forEach(
        (topic, infos) -> {
          if (matches(topic)) {
            for (PartitionInfo info : infos) {
              result.add(new TopicPartition(topic, info.partition()));
            }
          }
        });
    return result;
  }

  /** Fixed topics. */
  record Topics(List<String> topics) implements KafkaSubscription {
    @Override
    public boolean matches(String topic) {
      return topics.contains(topic);
    }

    @Override
    public Set<TopicPartition> partitions(Admin admin, KafkaClient client) {
      Set<String> existing =
          client.await(admin.listTopics().names(), "listing topics to find " + topics);
      for (String topic : topics) {
        if (!existing.contains(topic)) {
          throw new KafkaConnectorException(
              "Topic '"
                  + topic
                  + "' does not exist on the Kafka cluster at "
                  + client.bootstrapServers()
                  + ". Create it, fix its name in setTopics(...), or use setTopicPattern(...) to"
                  + " read topics as they appear.",
              new UnknownTopicOrPartitionException(topic));
        }
      }
      return describe(topics, admin, client);
    }

    @Override
    public String toString() {
      return "topics " + topics;
    }
  }

  /** Every topic whose whole name matches a pattern, now and later. */
  record TopicPattern(Pattern pattern) implements KafkaSubscription {
    @Override
    public boolean matches(String topic) {
      return pattern.matcher(topic).matches();
    }

    @Override
    public Set<TopicPartition> partitions(Admin admin, KafkaClient client) {
      Set<String> matching = new HashSet<>();
      for (String topic :
          client.await(admin.listTopics().names(), "listing topics matching " + pattern)) {
        if (matches(topic)) {
          matching.add(topic);
        }
      }
      return describe(matching, admin, client);
    }

    @Override
    public String toString() {
      return "topics matching '" + pattern + "'";
    }
  }

  private static Set<TopicPartition> describe(
      Collection<String> topics, Admin admin, KafkaClient client) {
    Set<TopicPartition> result = new HashSet<>();
    if (topics.isEmpty()) {
      return result;
    }
    Map<String, TopicDescription> descriptions =
        client.await(
            admin.describeTopics(topics).allTopicNames(), "describing the topics " + topics);
    descriptions.forEach(
        (topic, description) ->
            description
                .partitions()
                .forEach(p -> result.add(new TopicPartition(topic, p.partition()))));
    return result;
  }
}
