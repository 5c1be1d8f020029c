package io.weir.api.sink;

import java.io.Serializable;

/** The end of a stream: one writer per parallel subtask. */
public interface Sink<T> extends Serializable {

  SinkWriter<T> createWriter(WriterInitContext context) throws Exception;
}
