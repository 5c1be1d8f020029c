package io.weir.connector.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that owns one source subtask's {@link KafkaConsumer}: polls the assigned partitions,
 * discovers new ones, commits offsets, and hands batches to the task thread through a small bounded
 * queue (a full queue stops the polling, so a slow job back-pressures Kafka reads and memory stays
 * bounded). The task thread tracks the offsets itself, so what a checkpoint records never depends
 * on this thread's progress.
 *
 * <p>Started and closed (joined) by the {@link KafkaSourceReader} on the task thread; every other
 * public method may be called from the task thread while this thread runs.
 */
final class KafkaFetcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaFetcher.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /**
   * How long a cleanly stopping fetcher waits for its last offset commits (only for monitoring:
   * restores use the checkpointed offsets).
   */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /**
   * One poll's worth, in order.
   *
   * @param discovered partitions this fetcher took on before these records, at their offsets
   * @param records the records polled
   * @param positions for every assigned partition, the offset after these records (past any
   *     transaction markers)
   */
  record Fetch(
      List<KafkaPartitionSplit> discovered,
      ConsumerRecords<byte[], byte[]> records,
      Map<TopicPartition, Long> positions) {}

  private final KafkaSource<?> source;
  private final int subtask;
  private final int parallelism;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final BlockingQueue<Fetch> handover = new ArrayBlockingQueue<>(2);
  private final BlockingQueue<Consumer<KafkaConsumer<byte[], byte[]>>> commands =
      new LinkedBlockingQueue<>();
  private final AtomicReference<CompletableFuture<Void>> available =
      new AtomicReference<>(new CompletableFuture<>());
  private final Map<TopicPartition, Long> initialPositions;
  private volatile boolean running = true;
  private volatile Throwable failure;

  /** Partitions known to this subtask: assigned at start or discovered (fetcher thread only). */
  private final Set<TopicPartition> known = new HashSet<>();

  KafkaFetcher(
      KafkaSource<?> source,
      String name,
      int subtask,
      int parallelism,
      Map<TopicPartition, Long> initialPositions,
      Set<TopicPartition> finished) {
    this.source = source;
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.initialPositions = new HashMap<>(initialPositions);
    this.known.addAll(initialPositions.keySet());
    this.known.addAll(finished);
    Properties props = source.client.clientProperties();
    props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    String group = source.client.groupId();
    props.putIfAbsent(
        ConsumerConfig.CLIENT_ID_CONFIG,
        "weir-kafka-source-" + (group == null ? "" : group + "-") + subtask);
    this.consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.thread = new Thread(this::run, "kafka-fetcher " + name + " (" + (subtask + 1) + ")");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The next batch, or null if none is ready; rethrows a failure of the fetcher thread. */
  Fetch poll() {
    Throwable t = failure;
    if (t != null) {
      throw new KafkaConnectorException(
          "Reading from Kafka at " + source.client.bootstrapServers() + " failed: " + t, t);
    }
    return handover.poll();
  }

  boolean hasMore() {
    return !handover.isEmpty();
  }

  /** Completes when {@link #poll} has something (or a failure) to return. */
  CompletableFuture<Void> available() {
    CompletableFuture<Void> future = available.get();
    if (!handover.isEmpty() || failure != null) {
      return CompletableFuture.completedFuture(null);
    }
    return future;
  }

  /** Commits {@code offsets} (next offset per partition) to the consumer group, asynchronously. */
  void commit(Map<TopicPartition, Long> offsets, long checkpointId) {
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    offsets.forEach((tp, offset) -> commit.put(tp, new OffsetAndMetadata(offset)));
    commands.add(
        c ->
            c.commitAsync(
                commit,
                (done, e) -> {
                  if (e != null) {
                    LOG.warn(
                        "Committing the offsets of checkpoint {} to consumer group '{}' failed"
                            + " (monitoring only; the job's position is in the checkpoint): {}",
                        checkpointId,
                        source.client.groupId(),
                        e.toString());
                  }
                }));
  }

  /** Stops reading a partition (a bounded reader reached its stopping offset). */
  void unassign(TopicPartition tp) {
    commands.add(
        c -> {
          Set<TopicPartition> assignment = new HashSet<>(c.assignment());
          assignment.remove(tp);
          c.assign(assignment);
        });
  }

  private void run() {
    try {
      consumer.assign(initialPositions.keySet());
      initialPositions.forEach(consumer::seek);
      long interval = source.discoveryIntervalMs;
      long nextDiscovery = interval >= 0 ? System.nanoTime() : Long.MAX_VALUE;
      List<KafkaPartitionSplit> discovered = new ArrayList<>();
      Map<TopicPartition, Long> published = new HashMap<>();
      while (running) {
        runCommands();
        if (interval >= 0 && System.nanoTime() - nextDiscovery >= 0) {
          discover(discovered);
          nextDiscovery = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(interval);
        }
        ConsumerRecords<byte[], byte[]> records = ConsumerRecords.empty();
        if (consumer.assignment().isEmpty()) {
          if (discovered.isEmpty()) {
            long waitNanos =
                interval >= 0
                    ? Math.min(nextDiscovery - System.nanoTime(), POLL_TIMEOUT.toNanos())
                    : POLL_TIMEOUT.toNanos();
            Consumer<KafkaConsumer<byte[], byte[]>> command =
                commands.poll(Math.max(waitNanos, 0), TimeUnit.NANOSECONDS);
            if (command != null) {
              command.accept(consumer);
            }
            continue;
          }
        } else {
          try {
            records = consumer.poll(POLL_TIMEOUT);
          } catch (WakeupException e) {
            continue; // a command or close wants this thread
          }
        }
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
          positions.put(tp, consumer.position(tp));
        }
        if (!records.isEmpty() || !discovered.isEmpty() || !positions.equals(published)) {
          Fetch fetch = new Fetch(List.copyOf(discovered), records, positions);
          discovered.clear();
          while (running
              && !handover.offer(fetch, POLL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            runCommands();
          }
          published = positions;
          signal();
        }
      }
    } catch (WakeupException e) {
      if (running) {
        failure = e;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      failure = t;
    } finally {
      signal();
      try {
        if (failure == null) {
          // A clean stop: commits asked for before it (a bounded job's final checkpoint) go out,
          // and the close waits a bounded time for the group to answer them.
          runCommands();
          consumer.close(CLOSE_TIMEOUT);
        } else {
          consumer.close(Duration.ZERO);
        }
      } catch (RuntimeException e) {
        LOG.debug("Closing the Kafka consumer failed", e);
      }
    }
  }

  private void runCommands() {
    Consumer<KafkaConsumer<byte[], byte[]>> command;
    while ((command = commands.poll()) != null) {
      try {
        command.accept(consumer);
      } catch (WakeupException e) {
        if (running) {
          throw e;
        }
      }
    }
  }

  /** Takes on the partitions of this subtask that appeared since the last look. */
  private void discover(List<KafkaPartitionSplit> discovered) {
    Map<String, List<PartitionInfo>> topics;
    try {
      topics = consumer.listTopics(source.client.apiTimeout());
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      LOG.warn(
          "Partition discovery at {} timed out; trying again in {} ms",
          source.client.bootstrapServers(),
          source.discoveryIntervalMs);
      return;
    } catch (WakeupException e) {
      return;
    }
    List<TopicPartition> fresh = new ArrayList<>();
    for (TopicPartition tp : source.subscription.partitions(topics)) {
      if (!known.contains(tp)
          && KafkaSource.owner(tp.topic(), tp.partition(), parallelism) == subtask) {
        fresh.add(tp);
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    Map<TopicPartition, Long> beginning =
        consumer.beginningOffsets(fresh, source.client.apiTimeout());
    Set<TopicPartition> assignment = new HashSet<>(consumer.assignment());
    assignment.addAll(fresh);
    consumer.assign(assignment);
    for (TopicPartition tp : fresh) {
      long offset = beginning.get(tp);
      consumer.seek(tp, offset);
      known.add(tp);
      discovered.add(
          new KafkaPartitionSplit(
              tp.topic(), tp.partition(), offset, KafkaPartitionSplit.NO_STOPPING_OFFSET));
    }
    LOG.info("Subtask {} of {} discovered partitions {}", subtask, source, fresh);
  }

  private void signal() {
    available.getAndSet(new CompletableFuture<>()).complete(null);
  }

  /** Stops the thread and waits for it; the consumer is closed by the thread itself. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    if (thread.isAlive()) {
      thread.join();
    } else if (thread.getState() == Thread.State.NEW) {
      consumer.close(Duration.ZERO);
    }
  }
}
