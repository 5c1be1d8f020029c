package io.weir.runtime.task;

import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.Output;
import java.util.List;

/** The {@link Output}s that connect the operators of a chain and the chain to the network. */
final class ChainOutputs {

  private ChainOutputs() {}

  /** Hands records to the next operator of the chain as a method call. */
  static final class Chaining<T> implements Output<T> {
    private final OneInputOperator<T> next;
    private final String nextName;
    private final TypeSerializer<T> copier;

    /** {@code copier} copies mutable records (no object reuse); null passes references. */
    Chaining(OneInputOperator<T> next, String nextName, TypeSerializer<T> copier) {
      this.next = next;
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
  }

  /** Serializes records into a network writer. */
  static final class Network<T> implements Output<T> {
    private final RecordWriter<T> writer;

    Network(RecordWriter<T> writer) {
      this.writer = writer;
    }

    @Override
    public void collect(T record, long timestamp) {
      writer.emit(record, timestamp);
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
  }

  /** The output of a sink: nothing comes out. */
  static final class Discarding<T> implements Output<T> {
    @Override
    public void collect(T record, long timestamp) {}
  }
}
