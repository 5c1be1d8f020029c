package io.weir.api;

import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The sink of {@code executeAndCollect}: hands every element to the {@link CollectResultIterator}
 * of the same id, in this JVM, through a bounded queue, so a reader that falls behind
 * back-pressures the job. The sink runs with parallelism 1. Its copies find the queue through a
 * JVM-wide registry, so it works where the tasks run in the JVM that collects: the embedded local
 * cluster.
 */
final class CollectSink<T> implements Sink<T> {
  private static final long serialVersionUID = 1L;

  /** Elements buffered between the sink and the reader. */
  static final int CAPACITY = 4096;

  private static final Map<String, Channel> CHANNELS = new ConcurrentHashMap<>();

  /** The queue of one {@code executeAndCollect} call and whether its reader has gone. */
  static final class Channel {
    final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
    volatile boolean closed;
  }

  private final String id;

  private CollectSink(String id) {
    this.id = id;
  }

  /** A sink with a fresh channel registered; {@link #release} it when the reader is done. */
  static <T> CollectSink<T> open() {
    String id = UUID.randomUUID().toString();
    CHANNELS.put(id, new Channel());
    return new CollectSink<>(id);
  }

  Channel channel() {
    return CHANNELS.get(id);
  }

  void release() {
    Channel channel = CHANNELS.remove(id);
    if (channel != null) {
      channel.closed = true;
      channel.queue.clear();
    }
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    Channel channel = CHANNELS.get(id);
    if (channel == null) {
      throw new IllegalStateException(
          "executeAndCollect() hands the results to the program that called it, in its own"
              + " process, so the job must run on the embedded local cluster; this job runs in"
              + " another process (a TaskManager, or after the caller closed the iterator)."
              + " Write the results to a sink instead: print(), or sinkTo(...) a FileSink.");
    }
    return (element, ctx) -> {
      while (!channel.closed && !channel.queue.offer(element, 50, TimeUnit.MILLISECONDS)) {
        // the reader is behind: wait, but stop waiting once it has closed the iterator
      }
    };
  }

  @Override
  public String toString() {
    return "CollectSink";
  }
}
