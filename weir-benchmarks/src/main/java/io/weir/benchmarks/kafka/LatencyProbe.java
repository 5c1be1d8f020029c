package io.weir.benchmarks.kafka;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * KAFKA-LATENCY's measurement, while a job runs: a producer writes {@link KafkaBench#LATENCY_RATE}
 * records per second into the input for the warm-up and then {@code records} more, each stamped
 * just before its {@code send} with the nanoseconds since the probe started ({@link
 * System#nanoTime()}; negated for the warm-up's records, which are left out); a {@code
 * read_committed} consumer of the output takes, for every measured record it receives, the time its
 * {@code poll} returned minus the stamp. The producer runs on the caller's thread, the consumer on
 * one of its own, joined before {@link #run} returns.
 */
final class LatencyProbe {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** How often the producer's loop wakes up to send what is due. */
  private static final long PRODUCER_TICK_NANOS = 200_000L;

  private LatencyProbe() {}

  /** What one latency run measured. */
  record Figures(long measured, long seen, long spanNanos, long[] sortedLatencyNanos) {
    double percentileMs(double p) {
      if (sortedLatencyNanos.length == 0) {
        return Double.NaN;
      }
      int index = (int) Math.ceil(p / 100.0 * sortedLatencyNanos.length) - 1;
      return sortedLatencyNanos[Math.max(0, index)] / 1e6;
    }

    Result result(Engine engine, String config) {
      return Result.of(engine, KafkaBench.LATENCY_ID, config, measured, spanNanos)
          .with("p50Ms", ms(percentileMs(50)))
          .with("p99Ms", ms(percentileMs(99)))
          .with("maxMs", ms(percentileMs(100)))
          .with("seen", Long.toString(seen));
    }

    private static String ms(double ms) {
      return String.format(Locale.ROOT, "%.1f", ms);
    }
  }

  /** Produces the warm-up and {@code records} records at the rate and measures their latency. */
  static Figures run(String bootstrap, long records) throws Exception {
    long warmUp = (long) KafkaBench.LATENCY_RATE * KafkaBench.LATENCY_WARM_UP_SECONDS;
    long start = System.nanoTime();
    Consumer consumer = new Consumer(bootstrap, start, records);
    Thread consumerThread = new Thread(consumer, "latency-consumer");
    consumerThread.start();
    long span;
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
      long sent = 0;
      long measuredFrom = 0;
      long total = warmUp + records;
      while (sent < total) {
        long due =
            Math.min(
                total,
                (System.nanoTime() - start) * KafkaBench.LATENCY_RATE / NANOS_PER_SECOND + 1);
        for (; sent < due; sent++) {
          long i = sent + 1;
          long stamp = System.nanoTime() - start + 1;
          if (i == warmUp + 1) {
            measuredFrom = stamp;
          }
          producer.send(
              new ProducerRecord<>(
                  KafkaBench.INPUT,
                  (int) (i % KafkaBench.PARTITIONS),
                  null,
                  KafkaBench.inputValue(KafkaBench.key(i), i <= warmUp ? -stamp : stamp)));
        }
        LockSupport.parkNanos(PRODUCER_TICK_NANOS);
      }
      span = System.nanoTime() - start - measuredFrom;
      producer.flush();
    }
    // Every measured record should reach the output within a few checkpoints; a minute is plenty.
    consumer.stopAt(System.nanoTime() + TimeUnit.MINUTES.toNanos(1));
    consumerThread.join();
    if (consumer.failure != null) {
      throw new IllegalStateException("The latency consumer failed", consumer.failure);
    }
    long[] latencies = consumer.latencies();
    Arrays.sort(latencies);
    return new Figures(records, latencies.length, span, latencies);
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    // The input producer: acks=all and kafka-clients' default batching, as the sinks.
    Properties props = KafkaBench.sinkProducerProperties(false);
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Reads the output from its start until it has seen every measured record, or a deadline. */
  private static final class Consumer implements Runnable {
    private final String bootstrap;
    private final long start;
    private final long expected;
    private final AtomicLong deadline = new AtomicLong(Long.MAX_VALUE);
    private final List<long[]> chunks = new ArrayList<>();
    private long[] chunk = new long[1 << 16];
    private int inChunk;
    private long seen;
    private volatile Throwable failure;

    Consumer(String bootstrap, long start, long expected) {
      this.bootstrap = bootstrap;
      this.start = start;
      this.expected = expected;
    }

    void stopAt(long nanos) {
      deadline.set(nanos);
    }

    @Override
    public void run() {
      try (KafkaConsumer<byte[], byte[]> consumer = KafkaBench.committedConsumer(bootstrap)) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < KafkaBench.PARTITIONS; p++) {
          partitions.add(new TopicPartition(KafkaBench.OUTPUT, p));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        while (seen < expected && System.nanoTime() < deadline.get()) {
          ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
          long visible = System.nanoTime() - start;
          for (ConsumerRecord<byte[], byte[]> record : batch) {
            long stamp = KafkaBench.outputStamp(record);
            if (stamp > 0) {
              add(visible - stamp);
            }
          }
        }
      } catch (Throwable t) { // reported by run() on the producer's thread
        failure = t;
      }
    }

    private void add(long latency) {
      if (inChunk == chunk.length) {
        chunks.add(chunk);
        chunk = new long[chunk.length];
        inChunk = 0;
      }
      chunk[inChunk++] = latency;
      seen++;
    }

    /** Every latency taken, unsorted; called after the thread ended. */
    long[] latencies() {
      long[] all = new long[Math.toIntExact(seen)];
      int at = 0;
      for (long[] full : chunks) {
        System.arraycopy(full, 0, all, at, full.length);
        at += full.length;
      }
      System.arraycopy(chunk, 0, all, at, inChunk);
      return all;
    }
  }
}
