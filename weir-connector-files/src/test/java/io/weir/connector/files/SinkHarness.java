package io.weir.connector.files;

import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import java.util.List;

/**
 * Runs one subtask of a sink as the runtime does, without the runtime: its own Java-serialized copy
 * of the sink, {@code initializeState}, {@code createWriter}, then writes, snapshots and
 * notifications in the order a test gives them. A crash is simply dropping the harness.
 */
final class SinkHarness<T> {
  private static final SinkWriter.Context NO_TIMESTAMP = () -> null;

  private final Sink<T> sink;
  private final InMemoryOperatorState state;
  private final SinkWriter<T> writer;

  private SinkHarness(
      Sink<T> prototype, WriterInitContext where, InMemoryOperatorState.Snapshot from)
      throws Exception {
    this.sink = InMemoryOperatorState.copyOf(prototype);
    this.state = new InMemoryOperatorState(from);
    if (sink instanceof CheckpointedFunction checkpointed) {
      checkpointed.initializeState(state.initializationContext());
    }
    this.writer = sink.createWriter(where);
  }

  /** Subtask 0 of 1, first attempt, no state. */
  static <T> SinkHarness<T> start(Sink<T> prototype) throws Exception {
    return new SinkHarness<>(prototype, new WriterInitContext(0, 1, 0), null);
  }

  static <T> SinkHarness<T> start(
      Sink<T> prototype, WriterInitContext where, InMemoryOperatorState.Snapshot from)
      throws Exception {
    return new SinkHarness<>(prototype, where, from);
  }

  @SafeVarargs
  final SinkHarness<T> write(T... elements) throws Exception {
    return write(List.of(elements));
  }

  SinkHarness<T> write(List<T> elements) throws Exception {
    for (T element : elements) {
      writer.write(element, NO_TIMESTAMP);
    }
    return this;
  }

  /** The barrier of {@code checkpointId} passes; returns what the checkpoint stores. */
  InMemoryOperatorState.Snapshot snapshot(long checkpointId) throws Exception {
    ((CheckpointedFunction) sink).snapshotState(InMemoryOperatorState.checkpoint(checkpointId));
    return state.snapshot();
  }

  SinkHarness<T> notifyComplete(long checkpointId) throws Exception {
    ((CheckpointListener) sink).notifyCheckpointComplete(checkpointId);
    return this;
  }

  SinkHarness<T> notifyAborted(long checkpointId) throws Exception {
    ((CheckpointListener) sink).notifyCheckpointAborted(checkpointId);
    return this;
  }

  /** End of a bounded input: flush, the final checkpoint, then close, as the runtime does. */
  void finish(long finalCheckpointId) throws Exception {
    writer.flush(true);
    snapshot(finalCheckpointId);
    notifyComplete(finalCheckpointId);
    writer.close();
  }

  void close() throws Exception {
    writer.close();
  }
}
