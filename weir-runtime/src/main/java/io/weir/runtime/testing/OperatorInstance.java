package io.weir.runtime.testing;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.TaskInfo;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorContext;
import io.weir.runtime.operators.Output;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.operators.TwoInputOperator;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import java.util.List;

/**
 * One live instance of the operator under test, wired as a task would wire it: its own keyed state
 * backend (restored from bytes when there is state), its own operator state store, its own
 * processing-time clock, and an output that records what it emits until the instance is retired.
 * The test thread plays the task thread.
 */
final class OperatorInstance {

  static final String OPERATOR_ID = "operator-under-test";

  /** Instances of the harness share backend resources (memory) as the subtasks of a job do. */
  private static final Object JOB_SCOPE = new Object();

  private final OperatorSpec spec;
  private final StreamOperator<Object> operator;
  private final KeyedStateBackend<Object> backend;
  private final ManualProcessingTimeService clock;
  private final RecordingOutput output;
  private boolean closed;
  private long lastWatermark = Long.MIN_VALUE;

  private OperatorInstance(
      OperatorSpec spec,
      StreamOperator<Object> operator,
      KeyedStateBackend<Object> backend,
      ManualProcessingTimeService clock,
      RecordingOutput output) {
    this.spec = spec;
    this.operator = operator;
    this.backend = backend;
    this.clock = clock;
    this.output = output;
  }

  /**
   * A fresh operator, set up, initialized and opened.
   *
   * @param restored the state to start from, or null for a first start
   * @param attempt the attempt number the task info reports (incremented on every restore)
   * @param time where its processing-time clock starts
   * @param into where its output is recorded
   */
  @SuppressWarnings("unchecked")
  static OperatorInstance start(
      OperatorSpec spec,
      HarnessSettings settings,
      RestoredOperatorState restored,
      int attempt,
      long time,
      List<Outputs.Emitted> into)
      throws Exception {
    StreamOperator<Object> operator = (StreamOperator<Object>) spec.freshOperator().get();
    if (operator == null) {
      throw new IllegalArgumentException(
          "The operator supplier of '" + spec.name() + "' returned null; it must create one");
    }
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    KeyedStateBackend<Object> backend = null;
    TaskInfo taskInfo =
        new TaskInfo(
            spec.name(),
            settings.subtaskIndex(),
            settings.parallelism(),
            settings.maxParallelism(),
            attempt);
    if (spec.isKeyed()) {
      // The backend of state.backend.type, as -D properties set it: the same scripts verify an
      // operator on the heap and on RocksDB.
      backend =
          KeyedStateBackends.create(
              new KeyedStateBackendFactory.Context<>(
                  spec.name(),
                  OPERATOR_ID,
                  taskInfo,
                  (TypeSerializer<Object>) spec.keySerializer().duplicate(),
                  settings.keyGroupRange(),
                  Configuration.fromSystemProperties(),
                  loader,
                  restored,
                  JOB_SCOPE));
    }
    ManualProcessingTimeService clock = new ManualProcessingTimeService(time);
    OperatorContext context =
        new OperatorContext(
            spec.name(),
            taskInfo,
            loader,
            backend,
            restored == null
                ? new DefaultOperatorStateStore(spec.name())
                : new DefaultOperatorStateStore(spec.name(), restored.operatorLists()),
            clock,
            OPERATOR_ID,
            restored == null ? -1 : restored.checkpointId(),
            Configuration.fromSystemProperties().get(CoreOptions.GLOBAL_JOB_PARAMETERS));
    RecordingOutput output =
        new RecordingOutput(into, (TypeSerializer<Object>) spec.outputSerializer());
    operator.setup(context, output);
    operator.initializeState();
    operator.open();
    return new OperatorInstance(spec, operator, backend, clock, output);
  }

  /** Feeds one step, setting the current key first for a keyed one-input operator. */
  @SuppressWarnings("unchecked")
  void process(Step step) throws Exception {
    if (step instanceof Step.AdvanceProcessingTime t) {
      clock.advanceTo(t.time());
      return;
    }
    if (step instanceof Step.Watermark w) {
      processWatermark(w.timestamp());
      return;
    }
    Step.Element e = copied((Step.Element) step);
    if (operator instanceof TwoInputOperator<?, ?> two) {
      TwoInputOperator<Object, Object> inputs = (TwoInputOperator<Object, Object>) two;
      if (e.input() == 1) {
        inputs.processElement1(e.value(), e.timestamp());
      } else {
        inputs.processElement2(e.value(), e.timestamp());
      }
    } else if (operator instanceof OneInputOperator<?> one) {
      if (e.input() != 1) {
        throw new IllegalStateException(
            "Operator '" + spec.name() + "' has one input, but the script feeds input 2");
      }
      KeySelector<Object, Object> keys = (KeySelector<Object, Object>) spec.inputKeySelector();
      if (keys != null) {
        backend.setCurrentKey(keys.getKey(e.value()));
      }
      ((OneInputOperator<Object>) one).processElement(e.value(), e.timestamp());
    } else {
      throw new IllegalStateException(
          "Operator '"
              + spec.name()
              + "' ("
              + operator.getClass().getName()
              + ") has no input: it implements neither OneInputOperator nor TwoInputOperator");
    }
  }

  /** The element with a value of its own when the input's serializer is known. */
  @SuppressWarnings("unchecked")
  private Step.Element copied(Step.Element e) {
    TypeSerializer<Object> serializer =
        (TypeSerializer<Object>)
            (e.input() == 1 ? spec.input1Serializer() : spec.input2Serializer());
    return serializer == null || serializer.isImmutableType()
        ? e
        : new Step.Element(e.input(), serializer.copy(e.value()), e.timestamp());
  }

  /** A watermark reaches the operator; a watermark not above the last one is ignored. */
  void processWatermark(long watermark) throws Exception {
    if (watermark > lastWatermark) {
      lastWatermark = watermark;
      operator.processWatermark(watermark);
    }
  }

  /** The last watermark the operator got, or {@code Long.MIN_VALUE}. */
  long lastWatermark() {
    return lastWatermark;
  }

  /** The synchronous part of a checkpoint, taken between two steps as a barrier would be. */
  OperatorSnapshot snapshot(long checkpointId) throws Exception {
    return operator.snapshotState(checkpointId, clock.getCurrentProcessingTime());
  }

  void notifyCheckpointComplete(long checkpointId) throws Exception {
    if (backend != null) {
      backend.notifyCheckpointComplete(checkpointId);
    }
    operator.notifyCheckpointComplete(checkpointId);
  }

  void finish() throws Exception {
    operator.finish();
  }

  /**
   * Gives the instance up as a crash does: its operator is not closed, but its state backend is
   * released, as the native resources of a crashed process are (a RocksDB instance per abandoned
   * attempt would otherwise hold its files open until the test JVM runs out of descriptors).
   */
  void abandon() throws Exception {
    if (!closed) {
      closed = true;
      if (backend != null) {
        backend.close();
      }
    }
  }

  /** Closes the operator once; later calls do nothing. */
  void close() throws Exception {
    if (!closed) {
      closed = true;
      try {
        operator.close();
      } finally {
        if (backend != null) {
          backend.close();
        }
      }
    }
  }

  /** From now on whatever the instance emits is dropped: it no longer has a downstream. */
  void disconnect() {
    output.connected = false;
  }

  long currentProcessingTime() {
    return clock.getCurrentProcessingTime();
  }

  /** Records emitted elements, copied when a serializer is known. */
  private static final class RecordingOutput implements Output<Object> {
    private final List<Outputs.Emitted> into;
    private final TypeSerializer<Object> copier;
    boolean connected = true;

    RecordingOutput(List<Outputs.Emitted> into, TypeSerializer<Object> serializer) {
      this.into = into;
      this.copier =
          serializer == null || serializer.isImmutableType() ? null : serializer.duplicate();
    }

    @Override
    public void collect(Object record, long timestamp) {
      if (connected) {
        into.add(
            new Outputs.Emitted(
                copier == null || record == null ? record : copier.copy(record), timestamp));
      }
    }

    /** Side outputs are recorded among the main output, as {@link SideOutput}s. */
    @Override
    public <X> void collect(io.weir.api.OutputTag<X> tag, X record, long timestamp) {
      if (connected) {
        into.add(new Outputs.Emitted(new SideOutput(tag.getId(), record), timestamp));
      }
    }

    @Override
    public void emitWatermark(long watermark) {}

    @Override
    public void emitWatermarkStatus(boolean idle) {}
  }
}
