package io.weir.runtime.api;

import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A test sink that collects every element it receives, from every parallel subtask, in one JVM-wide
 * queue. The runtime ships a serialized copy of the sink to each subtask, so the queue lives in a
 * static map under the random id the sink was created with; {@link #results()} reads it from the
 * test thread.
 *
 * <p>Elements of one subtask keep their order in the queue; elements of different subtasks
 * interleave.
 */
public final class CollectSink<T> implements Sink<T> {
  private static final long serialVersionUID = 1L;

  private static final ConcurrentHashMap<String, ConcurrentLinkedQueue<Object>> RESULTS =
      new ConcurrentHashMap<>();

  private final String id;

  public CollectSink() {
    this.id = UUID.randomUUID().toString();
    RESULTS.put(id, new ConcurrentLinkedQueue<>());
  }

  /** The id under which this sink (and all its copies) collects. */
  public String id() {
    return id;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    ConcurrentLinkedQueue<Object> queue =
        RESULTS.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>());
    return (element, ctx) -> queue.add(element);
  }

  /** A snapshot of everything collected so far. */
  @SuppressWarnings("unchecked")
  public List<T> results() {
    ConcurrentLinkedQueue<Object> queue = RESULTS.get(id);
    List<T> out = new ArrayList<>();
    if (queue != null) {
      for (Object o : queue) {
        out.add((T) o);
      }
    }
    return out;
  }

  /** Number of elements collected so far. */
  public int size() {
    ConcurrentLinkedQueue<Object> queue = RESULTS.get(id);
    return queue == null ? 0 : queue.size();
  }

  /** Forgets what this sink collected. */
  public void clear() {
    RESULTS.remove(id);
  }
}
