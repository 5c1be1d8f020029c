package io.weir.api;

import io.weir.api.graph.ChainingStrategy;
import io.weir.api.graph.Transformation;

/** The end of a stream, whose name, uid and parallelism can be set. */
public class DataStreamSink<T> {

  private final Transformation<Void> transformation;

  DataStreamSink(Transformation<Void> transformation) {
    this.transformation = transformation;
  }

  public Transformation<Void> getTransformation() {
    return transformation;
  }

  public DataStreamSink<T> name(String name) {
    transformation.setName(name);
    return this;
  }

  public DataStreamSink<T> uid(String uid) {
    transformation.setUid(uid);
    return this;
  }

  public DataStreamSink<T> setParallelism(int parallelism) {
    transformation.setParallelism(parallelism);
    return this;
  }

  /** Runs the sink in a task of its own, not chained to the operator before it. */
  public DataStreamSink<T> disableChaining() {
    transformation.setChainingStrategy(ChainingStrategy.NEVER);
    return this;
  }

  /** Puts the sink in the slot sharing group {@code slotSharingGroup}, as an operator's. */
  public DataStreamSink<T> slotSharingGroup(String slotSharingGroup) {
    transformation.setSlotSharingGroup(slotSharingGroup);
    return this;
  }
}
