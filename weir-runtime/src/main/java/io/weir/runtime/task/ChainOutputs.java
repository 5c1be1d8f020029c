package io.weir.runtime.task;

import io.weir.api.OutputTag;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.Output;
import io.weir.runtime.operators.StreamOperator;
import java.util.List;
import java.util.Map;

/** The {@link Output}s that connect the operators of a chain and the chain to the network. */
final class ChainOutputs {

  private ChainOutputs() {}

  /** Hands records to the next operator of the chain as a method call. */
  static final class Chaining<T> implements Output<T> {
    private final OneInputOperator<T> next;
    private final StreamOperator<?> nextOperator;
    private final String nextName;
    private final TypeSerializer<T> copier;

    /**
     * {@code next} is where records enter (the operator or its keyed input), {@code nextOperator}
     * the operator itself, for watermarks; {@code copier} copies mutable records (no object reuse),
     * null passes references.
     */
    Chaining(
        OneInputOperator<T> next,
        StreamOperator<?> nextOperator,
        String nextName,
        TypeSerializer<T> copier) {
      this.next = next;
      this.nextOperator = nextOperator;
      this.nextName = nextName;
      this.copier = copier;
    }

    @Override
    public void collect(T record, long timestamp) {
      try {
        next.processElement(copier == null ? record : copier.copy(record), timestamp);
      } catch (OperatorException | CancelTaskException e) {
        throw e;
      } catch (Exception e) {
        throw new OperatorException(nextName, e);
      }
    }

    @Override
    public void emitWatermark(long watermark) {
      try {
        nextOperator.processWatermark(watermark);
      } catch (OperatorException | CancelTaskException e) {
        throw e;
      } catch (Exception e) {
        throw new OperatorException(nextName, e);
      }
    }

    @Override
    public void emitWatermarkStatus(boolean idle) {
      try {
        nextOperator.processWatermarkStatus(idle);
      } catch (OperatorException | CancelTaskException e) {
        throw e;
      } catch (Exception e) {
        throw new OperatorException(nextName, e);
      }
    }
  }

  /** Serializes records into a network writer, counting them. */
  static final class Network<T> implements Output<T> {
    private final RecordWriter<T> writer;

    /** Records handed to the writer; written by the task thread only. */
    private long records;

    Network(RecordWriter<T> writer) {
      this.writer = writer;
    }

    @Override
    public void collect(T record, long timestamp) {
      records++;
      writer.emit(record, timestamp);
    }

    long records() {
      return records;
    }

    @Override
    public void emitWatermark(long watermark) {
      writer.broadcastEvent(new ChannelEvent.Watermark(watermark));
    }

    @Override
    public void emitWatermarkStatus(boolean idle) {
      writer.broadcastEvent(
          idle ? ChannelEvent.WatermarkStatus.IDLE : ChannelEvent.WatermarkStatus.ACTIVE);
    }
  }

  /** Sends each record to several outputs. */
  static final class Broadcasting<T> implements Output<T> {
    private final Output<T>[] outputs;

    @SuppressWarnings("unchecked")
    Broadcasting(List<Output<T>> outputs) {
      this.outputs = outputs.toArray(new Output[0]);
    }

    @Override
    public void collect(T record, long timestamp) {
      for (Output<T> output : outputs) {
        output.collect(record, timestamp);
      }
    }

    @Override
    public void emitWatermark(long watermark) {
      for (Output<T> output : outputs) {
        output.emitWatermark(watermark);
      }
    }

    @Override
    public void emitWatermarkStatus(boolean idle) {
      for (Output<T> output : outputs) {
        output.emitWatermarkStatus(idle);
      }
    }
  }

  /**
   * The main output plus the side outputs that something reads, by tag id. Only operators with
   * side-output edges get one, so the main path is unchanged for all others.
   */
  static final class WithSideOutputs<T> implements Output<T> {
    private final Output<T> main;
    private final Map<String, Output<Object>> sides;

    WithSideOutputs(Output<T> main, Map<String, Output<Object>> sides) {
      this.main = main;
      this.sides = Map.copyOf(sides);
    }

    @Override
    public void collect(T record, long timestamp) {
      main.collect(record, timestamp);
    }

    @Override
    public <X> void collect(OutputTag<X> tag, X record, long timestamp) {
      Output<Object> side = sides.get(tag.getId());
      if (side != null) {
        side.collect(record, timestamp);
      }
    }

    @Override
    public void emitWatermark(long watermark) {
      main.emitWatermark(watermark);
      for (Output<Object> side : sides.values()) {
        side.emitWatermark(watermark);
      }
    }

    @Override
    public void emitWatermarkStatus(boolean idle) {
      main.emitWatermarkStatus(idle);
      for (Output<Object> side : sides.values()) {
        side.emitWatermarkStatus(idle);
      }
    }
  }

  /** The output of a sink: nothing comes out. */
  static final class Discarding<T> implements Output<T> {
    @Override
    public void collect(T record, long timestamp) {}

    @Override
    public void emitWatermark(long watermark) {}

    @Override
    public void emitWatermarkStatus(boolean idle) {}
  }
}
