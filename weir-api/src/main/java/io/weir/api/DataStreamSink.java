package io.weir.api;

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
}
