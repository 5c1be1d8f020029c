package io.weir.api;

import io.weir.api.graph.ChainingStrategy;
import io.weir.api.graph.Transformation;
import io.weir.api.typeutils.TypeHint;
import io.weir.api.typeutils.TypeInformation;

/** The stream produced by one operator, whose name, uid, parallelism and type can be set. */
public class SingleOutputStreamOperator<T> extends DataStream<T> {

  protected SingleOutputStreamOperator(
      StreamEnvironment environment, Transformation<T> transformation) {
    super(environment, transformation);
  }

  public SingleOutputStreamOperator<T> name(String name) {
    transformation.setName(name);
    return this;
  }

  /** A stable id for the operator, so its state maps to it across job versions. */
  public SingleOutputStreamOperator<T> uid(String uid) {
    transformation.setUid(uid);
    return this;
  }

  public SingleOutputStreamOperator<T> setParallelism(int parallelism) {
    transformation.setParallelism(parallelism);
    return this;
  }

  /**
   * The number of key groups of this operator's keyed state (at least its parallelism), instead of
   * {@code pipeline.max-parallelism}; fixed for the life of the operator's state, as in Flink.
   */
  public SingleOutputStreamOperator<T> setMaxParallelism(int maxParallelism) {
    transformation.setMaxParallelism(maxParallelism);
    return this;
  }

  /**
   * Runs this operator in a task of its own: not chained to the operator before it nor to the one
   * after it, as Flink's {@code disableChaining()}.
   */
  public SingleOutputStreamOperator<T> disableChaining() {
    transformation.setChainingStrategy(ChainingStrategy.NEVER);
    return this;
  }

  /**
   * Starts a new chain at this operator: it is not chained to the operator before it, but the
   * operators after it may chain to it, as Flink's {@code startNewChain()}.
   */
  public SingleOutputStreamOperator<T> startNewChain() {
    transformation.setChainingStrategy(ChainingStrategy.HEAD);
    return this;
  }

  /**
   * Puts this operator in the slot sharing group {@code slotSharingGroup}: it shares slots only
   * with operators of the same group, and is never chained to an operator of another. Operators
   * without a group take their inputs' group, or {@code "default"}, as in Flink.
   */
  public SingleOutputStreamOperator<T> slotSharingGroup(String slotSharingGroup) {
    transformation.setSlotSharingGroup(slotSharingGroup);
    return this;
  }

  /** Declares the output type where it cannot be extracted (for example, a lambda's Collector). */
  public SingleOutputStreamOperator<T> returns(TypeInformation<T> type) {
    transformation.setOutputType(type);
    return this;
  }

  public SingleOutputStreamOperator<T> returns(TypeHint<T> hint) {
    return returns(hint.getTypeInfo());
  }

  public SingleOutputStreamOperator<T> returns(Class<T> type) {
    return returns(TypeInformation.of(type));
  }

  /**
   * The records this operator emitted to the side output {@code tag} (for example the late records
   * of a window with {@code sideOutputLateData(tag)}).
   */
  public <X> DataStream<X> getSideOutput(OutputTag<X> tag) {
    java.util.Objects.requireNonNull(tag, "output tag");
    if (tag.getTypeInfo() == null) {
      throw new IllegalArgumentException(
          "OutputTag '" + tag.getId() + "' has no type; create it where the job is built");
    }
    return new DataStream<>(
        environment, new io.weir.api.graph.SideOutputTransformation<>(transformation, tag));
  }
}
