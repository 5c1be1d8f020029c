package io.weir.connector.kafka;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;

/**
 * How a connector reaches Kafka: the bootstrap servers, the client properties and how long a call
 * may take, with errors that name the address and the setting to change. Serializable, so it
 * travels with a source or sink to every subtask.
 *
 * @param bootstrapServers {@code bootstrap.servers}
 * @param properties every other client property, as given by the user
 */
record KafkaClient(String bootstrapServers, Properties properties) implements Serializable {

  /** Kafka's default for {@code default.api.timeout.ms}. */
  static final Duration DEFAULT_API_TIMEOUT = Duration.ofMinutes(1);

  KafkaClient {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    if (bootstrapServers.isBlank()) {
      throw new IllegalArgumentException(
          "bootstrap.servers is empty: set the Kafka brokers with setBootstrapServers(\"host:port\")");
    }
    Properties copy = new Properties();
    copy.putAll(properties);
    properties = copy;
  }

  /** The properties with {@code bootstrap.servers} set, for a new client. */
  Properties clientProperties() {
    Properties props = new Properties();
    props.putAll(properties);
    props.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return props;
  }

  /** How long one call to Kafka may take before it fails: {@code default.api.timeout.ms}. */
  Duration apiTimeout() {
    String value = properties.getProperty(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
    return value == null ? DEFAULT_API_TIMEOUT : Duration.ofMillis(Long.parseLong(value.trim()));
  }

  String groupId() {
    return properties.getProperty(ConsumerConfig.GROUP_ID_CONFIG);
  }

  IsolationLevel isolationLevel() {
    return OffsetsInitializer.isolation(
        properties.getProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
  }

  Admin createAdmin() {
    Properties props = clientProperties();
    props.keySet().removeIf(key -> !isAdminProperty(key.toString()));
    long timeout = apiTimeout().toMillis();
    props.putIfAbsent(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout));
    props.putIfAbsent(
        CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(Math.min(timeout, 30_000)));
    return Admin.create(props);
  }

  private static boolean isAdminProperty(String key) {
    return org.apache.kafka.clients.admin.AdminClientConfig.configNames().contains(key);
  }

  /**
   * Waits for {@code future} at most {@link #apiTimeout()}, turning a time-out into an error that
   * names the brokers and the setting, and unwrapping Kafka's own errors.
   *
   * @param doing what the call does, for the message ("listing the partitions of topic 'orders'")
   */
  <T> T await(KafkaFuture<T> future, String doing) {
    Duration timeout = apiTimeout();
    try {
      return future.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while " + doing, e);
    } catch (TimeoutException e) {
      throw unreachable(doing, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw unreachable(doing, cause);
      }
      if (cause instanceof RuntimeException runtime) {
        throw new KafkaConnectorException(
            "Kafka at " + bootstrapServers + " failed " + doing + ": " + cause, runtime);
      }
      throw new KafkaConnectorException(
          "Kafka at " + bootstrapServers + " failed " + doing + ": " + cause, cause);
    }
  }

  KafkaConnectorException unreachable(String doing, Throwable cause) {
    return new KafkaConnectorException(
        "No answer from the Kafka cluster at "
            + bootstrapServers
            + " (bootstrap.servers) within "
            + apiTimeout().toMillis()
            + " ms (default.api.timeout.ms) while "
            + doing
            + ". Check that the address is right and the brokers are up and reachable from here.",
        cause);
  }
}
