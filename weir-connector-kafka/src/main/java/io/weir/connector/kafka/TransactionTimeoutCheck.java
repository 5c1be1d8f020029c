package io.weir.connector.kafka;

import io.weir.api.CheckpointConfig;
import io.weir.api.RestartStrategy;
import io.weir.api.config.Configuration;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks an exactly-once Kafka sink makes when the job is submitted, so that a transaction
 * timeout that cannot work fails before any record is written (FLINK-30419 fails at runtime):
 *
 * <ul>
 *   <li>checkpointing is on (without it no transaction ever commits);
 *   <li>{@code transaction.timeout.ms} exceeds checkpoint interval + checkpoint timeout + restart
 *       delay, the longest a transaction may wait for its commit;
 *   <li>{@code transaction.timeout.ms} is at most the broker's {@code transaction.max.timeout.ms},
 *       read with {@code Admin.describeConfigs}.
 * </ul>
 */
final class TransactionTimeoutCheck {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionTimeoutCheck.class);

  private TransactionTimeoutCheck() {}

  static void check(KafkaClient client, Configuration job) {
    long timeout = transactionTimeoutMs(client);
    CheckpointConfig checkpoints = new CheckpointConfig(job);
    if (!checkpoints.isCheckpointingEnabled()) {
      throw new IllegalArgumentException(
          "An EXACTLY_ONCE KafkaSink commits its transactions when checkpoints complete, but"
              + " checkpointing is off: enable it with env.enableCheckpointing(interval)"
              + " (execution.checkpointing.interval), or use DeliveryGuarantee.AT_LEAST_ONCE or"
              + " NONE");
    }
    if (checkpoints.getCheckpointingMode() != io.weir.api.CheckpointingMode.EXACTLY_ONCE) {
      LOG.warn(
          "An EXACTLY_ONCE KafkaSink runs in a job whose checkpoints are {}"
              + " (execution.checkpointing.mode): the job's state, and so its output, is then only"
              + " at least once. Use CheckpointingMode.EXACTLY_ONCE for exactly-once output.",
          checkpoints.getCheckpointingMode());
    }
    long interval = checkpoints.getCheckpointInterval().toMillis();
    long checkpointTimeout = checkpoints.getCheckpointTimeout().toMillis();
    long restartDelay = maxRestartDelay(RestartStrategy.fromConfiguration(job, true)).toMillis();
    long needed = interval + checkpointTimeout + restartDelay;
    if (timeout <= needed) {
      throw new IllegalArgumentException(
          "The KafkaSink's transaction.timeout.ms = "
              + timeout
              + " ms is too short: a transaction stays open from its first record until the"
              + " checkpoint after it completes, and across a restart until the restored job"
              + " commits it, so it must exceed checkpoint interval (execution.checkpointing.interval"
              + " = "
              + interval
              + " ms) + checkpoint timeout (execution.checkpointing.timeout = "
              + checkpointTimeout
              + " ms) + restart delay (restart-strategy.* = "
              + restartDelay
              + " ms) = "
              + needed
              + " ms; otherwise the broker aborts it and its records are lost. Raise"
              + " transaction.timeout.ms (at most the broker's transaction.max.timeout.ms), or lower"
              + " the checkpoint timeout, interval or restart delay.");
    }
    long brokerMax = brokerMaxTimeoutMs(client);
    if (timeout > brokerMax) {
      throw new IllegalArgumentException(
          "The KafkaSink's transaction.timeout.ms = "
              + timeout
              + " ms is above the broker's transaction.max.timeout.ms = "
              + brokerMax
              + " ms at "
              + client.bootstrapServers()
              + ", so the broker would refuse every transaction. Lower transaction.timeout.ms to at"
              + " most "
              + brokerMax
              + " ms (it must still exceed "
              + needed
              + " ms: checkpoint interval + checkpoint timeout + restart delay), or raise"
              + " transaction.max.timeout.ms on the brokers.");
    }
  }

  static long transactionTimeoutMs(KafkaClient client) {
    String value = client.properties().getProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "transaction.timeout.ms must be a number of milliseconds, but was '" + value + "'", e);
    }
  }

  /** The longest a restart may wait before the job runs again. */
  static Duration maxRestartDelay(RestartStrategy strategy) {
    if (strategy instanceof RestartStrategy.FixedDelay fixed) {
      return fixed.delay();
    }
    if (strategy instanceof RestartStrategy.FailureRate rate) {
      return rate.delay();
    }
    if (strategy instanceof RestartStrategy.ExponentialDelay exponential) {
      return Duration.ofMillis(
          (long)
              (exponential.maxBackoff().toMillis()
                  * (1 + Math.max(0, exponential.jitterFactor()))));
    }
    return Duration.ZERO;
  }

  /** The smallest {@code transaction.max.timeout.ms} among the brokers. */
  static long brokerMaxTimeoutMs(KafkaClient client) {
    try (Admin admin = client.createAdmin()) {
      Collection<Node> nodes =
          client.await(admin.describeCluster().nodes(), "describing the cluster");
      List<ConfigResource> brokers =
          nodes.stream()
              .map(n -> new ConfigResource(ConfigResource.Type.BROKER, n.idString()))
              .toList();
      Map<ConfigResource, Config> configs =
          client.await(
              admin.describeConfigs(brokers).all(),
              "reading transaction.max.timeout.ms of brokers " + nodes);
      long min = Long.MAX_VALUE;
      for (Config config : configs.values()) {
        ConfigEntry entry = config.get("transaction.max.timeout.ms");
        if (entry != null && entry.value() != null) {
          min = Math.min(min, Long.parseLong(entry.value()));
        }
      }
      return min;
    }
  }
}
