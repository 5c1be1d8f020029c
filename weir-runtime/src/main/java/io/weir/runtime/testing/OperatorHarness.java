package io.weir.runtime.testing;

import io.weir.api.DataStream;
import io.weir.api.DataStreamSink;
import io.weir.api.functions.CoProcessFunction;
import io.weir.api.functions.FilterFunction;
import io.weir.api.functions.FlatMapFunction;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.OneInputTransformation;
import io.weir.api.graph.Operation;
import io.weir.api.graph.Transformation;
import io.weir.api.graph.TwoInputTransformation;
import io.weir.api.sink.Sink;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorFactory;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.operators.TwoInputOperator;
import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Checks that an operator's output survives checkpoints: the operator is driven step by step, with
 * a snapshot + restore into a fresh instance injected between steps, and every run must give the
 * same output as the uninterrupted one. Weir's form of Hazelcast Jet's {@code
 * TestSupport.verifyProcessor}.
 *
 * <pre>{@code
 * OperatorHarness.forKeyedProcess(new CountPerKey(), w -> w, Types.STRING, Types.LONG)
 *     .input("a", "b", "a")
 *     .expectOutput(List.of(1L, 1L, 2L))
 *     .verify();
 * }</pre>
 *
 * <p>Each instance gets its own copy of the user function (by Java serialization, as every subtask
 * does), so a function that keeps what should be state in a plain field is caught. State moves
 * between instances only as bytes, through the real snapshot path: keyed state through {@code
 * HeapSnapshotStrategy}, operator state and keyed state through {@code SubtaskStateCodec} and a
 * {@code JobManagerCheckpointStorage}.
 *
 * <p>Processing time moves only by the script's {@code advanceProcessingTime} steps, event time by
 * its {@code watermark} steps (a restored instance gets the last watermark before its checkpoint
 * again, as sources re-emit theirs after a restore); the event-time timers still pending fire at
 * {@code finish()}, which ends every run as the end of a bounded input does. Side outputs are
 * recorded among the output as {@link SideOutput}s. Timers registered at the same time fire in no
 * particular order, and a restore may change that order: expect the output of such operators in any
 * order.
 */
public final class OperatorHarness {

  private OperatorHarness() {}

  // ------------------------------------------------------------------ one input

  /** {@code map(function)}. */
  public static <IN, OUT> OneInputHarness<IN, OUT> forMap(MapFunction<IN, OUT> function) {
    return oneInput("Map", new Operation.Map<>(function), null, null);
  }

  /** {@code flatMap(function)}. */
  public static <IN, OUT> OneInputHarness<IN, OUT> forFlatMap(FlatMapFunction<IN, OUT> function) {
    return oneInput("Flat Map", new Operation.FlatMap<>(function), null, null);
  }

  /** {@code filter(function)}. */
  public static <T> OneInputHarness<T, T> forFilter(FilterFunction<T> function) {
    return oneInput("Filter", new Operation.Filter<>(function), null, null);
  }

  /** {@code process(function)} on a stream that is not keyed. */
  public static <IN, OUT> OneInputHarness<IN, OUT> forProcess(ProcessFunction<IN, OUT> function) {
    return oneInput("Process", new Operation.Process<>(function), null, null);
  }

  /** {@code keyBy(keySelector).process(function)}. */
  public static <K, IN, OUT> OneInputHarness<IN, OUT> forKeyedProcess(
      KeyedProcessFunction<K, IN, OUT> function,
      KeySelector<IN, K> keySelector,
      TypeInformation<K> keyType,
      TypeInformation<OUT> outputType) {
    return oneInput(
        "Keyed Process",
        new Operation.KeyedProcess<>(function),
        new KeyContext<>(keySelector, keyType),
        outputType);
  }

  /** {@code keyBy(keySelector).reduce(function)}: the running reduction per key. */
  public static <K, T> OneInputHarness<T, T> forReduce(
      ReduceFunction<T> function,
      KeySelector<T, K> keySelector,
      TypeInformation<K> keyType,
      TypeInformation<T> type) {
    OneInputHarness<T, T> harness =
        oneInput(
            "Keyed Reduce",
            new Operation.Reduce<>(function),
            new KeyContext<>(keySelector, keyType),
            Objects.requireNonNull(type, "type"));
    return harness.inputType(type);
  }

  /** {@code sinkTo(sink)}: check what it writes with {@code expectExternalOutput}. */
  public static <IN> OneInputHarness<IN, Void> forSink(Sink<IN> sink) {
    return oneInput("Sink", new Operation.SinkTo<>(sink), null, null);
  }

  /** {@code addSink(function)}: check what it writes with {@code expectExternalOutput}. */
  public static <IN> OneInputHarness<IN, Void> forSinkFunction(SinkFunction<IN> function) {
    return oneInput("Sink", new Operation.SinkFn<>(function), null, null);
  }

  /**
   * The last operator of a stream built with the DataStream API, with its name, key and types: for
   * what has no factory here, such as {@code keyBy(...).sum(1)} or a rich map after {@code keyBy}.
   * The stream is only inspected, never executed.
   */
  public static <IN, OUT> OneInputHarness<IN, OUT> forStream(DataStream<OUT> stream) {
    Transformation<OUT> t = stream.getTransformation();
    if (!(t instanceof OneInputTransformation<?, OUT> one)) {
      throw new IllegalArgumentException(
          "forStream needs a stream that ends in an operation on one input (map, process,"
              + " reduce, ...), but '"
              + t.getName()
              + "' is a "
              + t.getClass().getSimpleName()
              + "; use forTwoInputStream for connected streams");
    }
    OneInputHarness<IN, OUT> harness =
        oneInput(one.getName(), one.getOperation(), one.getKeyContext(), one.getOutputType());
    harness.spec =
        harness.spec.withInputSerializers(serializer(one.getInput().getOutputType()), null);
    return harness.maxParallelism(stream.getEnvironment().getMaxParallelism());
  }

  /** The sink of a stream built with the DataStream API ({@code sinkTo} or {@code addSink}). */
  public static <IN> OneInputHarness<IN, Void> forSink(DataStreamSink<IN> sink) {
    Transformation<Void> t = sink.getTransformation();
    if (!(t instanceof OneInputTransformation<?, Void> one)) {
      throw new IllegalArgumentException("'" + t.getName() + "' is not a sink on one input");
    }
    OneInputHarness<IN, Void> harness =
        oneInput(one.getName(), one.getOperation(), one.getKeyContext(), null);
    harness.spec =
        harness.spec.withInputSerializers(serializer(one.getInput().getOutputType()), null);
    return harness;
  }

  /**
   * An operator of your own on one input, not keyed (add {@link OneInputHarness#keyedBy}).
   *
   * @param freshOperator creates a new operator with its own user code on every call
   */
  public static <IN, OUT, O extends StreamOperator<OUT> & OneInputOperator<IN>>
      OneInputHarness<IN, OUT> forOperator(String name, Supplier<O> freshOperator) {
    return new OneInputHarness<>(OperatorSpec.of(name, distinct(name, freshOperator)));
  }

  // ------------------------------------------------------------------ two inputs

  /** {@code connect(other).process(function)} on streams that are not keyed. */
  public static <I1, I2, OUT> TwoInputHarness<I1, I2, OUT> forCoProcess(
      CoProcessFunction<I1, I2, OUT> function) {
    return twoInput("Co-Process", new Operation.CoProcess<>(function), null, null, null);
  }

  /** {@code connect(other).keyBy(keySelector1, keySelector2).process(function)}. */
  public static <K, I1, I2, OUT> TwoInputHarness<I1, I2, OUT> forKeyedCoProcess(
      KeyedCoProcessFunction<K, I1, I2, OUT> function,
      KeySelector<I1, K> keySelector1,
      KeySelector<I2, K> keySelector2,
      TypeInformation<K> keyType,
      TypeInformation<OUT> outputType) {
    return twoInput(
        "Keyed Co-Process",
        new Operation.KeyedCoProcess<>(function),
        new KeyContext<>(keySelector1, keyType),
        new KeyContext<>(keySelector2, keyType),
        outputType);
  }

  /** The last operator of connected streams built with the DataStream API. */
  public static <I1, I2, OUT> TwoInputHarness<I1, I2, OUT> forTwoInputStream(
      DataStream<OUT> stream) {
    Transformation<OUT> t = stream.getTransformation();
    if (!(t instanceof TwoInputTransformation<?, ?, OUT> two)) {
      throw new IllegalArgumentException(
          "forTwoInputStream needs a stream that ends in an operation on connected streams, but '"
              + t.getName()
              + "' is a "
              + t.getClass().getSimpleName());
    }
    TwoInputHarness<I1, I2, OUT> harness =
        twoInput(
            two.getName(),
            two.getOperation(),
            two.getKeyContext1(),
            two.getKeyContext2(),
            two.getOutputType());
    harness.spec =
        harness.spec.withInputSerializers(
            serializer(two.getInput1().getOutputType()),
            serializer(two.getInput2().getOutputType()));
    return harness.maxParallelism(stream.getEnvironment().getMaxParallelism());
  }

  /**
   * An operator of your own on two inputs, not keyed (add {@link
   * TwoInputHarness#keyedStateBackend}).
   *
   * @param freshOperator creates a new operator with its own user code on every call
   */
  public static <I1, I2, OUT, O extends StreamOperator<OUT> & TwoInputOperator<I1, I2>>
      TwoInputHarness<I1, I2, OUT> forTwoInputOperator(String name, Supplier<O> freshOperator) {
    return new TwoInputHarness<>(OperatorSpec.of(name, distinct(name, freshOperator)));
  }

  // ------------------------------------------------------------------ plumbing

  private static <IN, OUT> OneInputHarness<IN, OUT> oneInput(
      String name, Operation operation, KeyContext<?, ?> key, TypeInformation<?> outputType) {
    Objects.requireNonNull(operation.userObject(), "function");
    return new OneInputHarness<>(
        OperatorSpec.of(
                name,
                () -> OperatorFactory.create(name, operation, key, null, serializer(outputType)))
            .withKey(
                key == null ? null : key.keyType().createSerializer(),
                key == null ? null : key.selector())
            .withOutputSerializer(serializer(outputType)));
  }

  private static <I1, I2, OUT> TwoInputHarness<I1, I2, OUT> twoInput(
      String name,
      Operation operation,
      KeyContext<?, ?> key1,
      KeyContext<?, ?> key2,
      TypeInformation<?> outputType) {
    Objects.requireNonNull(operation.userObject(), "function");
    // A keyed two-input operator sets each element's key itself.
    return new TwoInputHarness<>(
        OperatorSpec.of(
                name,
                () -> OperatorFactory.create(name, operation, key1, key2, serializer(outputType)))
            .withKey(key1 == null ? null : key1.keyType().createSerializer(), null)
            .withOutputSerializer(serializer(outputType)));
  }

  private static TypeSerializer<?> serializer(TypeInformation<?> type) {
    return type == null || type.isMissing() ? null : type.createSerializer();
  }

  /** Fails when the supplier hands out the instance it handed out last: restores need fresh. */
  private static <O> Supplier<O> distinct(String name, Supplier<O> supplier) {
    Objects.requireNonNull(supplier, "freshOperator");
    AtomicReference<WeakReference<O>> last = new AtomicReference<>(new WeakReference<>(null));
    return () -> {
      O operator = supplier.get();
      if (operator != null && operator == last.get().get()) {
        throw new IllegalStateException(
            "The operator supplier of '"
                + name
                + "' returned the instance it returned before; a restore must start a fresh"
                + " instance, so create a new operator (and function) on every call");
      }
      last.set(new WeakReference<>(operator));
      return operator;
    };
  }
}
