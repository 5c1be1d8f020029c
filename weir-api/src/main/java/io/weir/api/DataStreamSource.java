package io.weir.api;

import io.weir.api.graph.SourceTransformation;

/** The stream coming out of a source. */
public class DataStreamSource<T> extends SingleOutputStreamOperator<T> {

  DataStreamSource(StreamEnvironment environment, SourceTransformation<T> transformation) {
    super(environment, transformation);
  }
}
